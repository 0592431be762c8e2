package io.spinagent.plugin.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountStateRecorder;
import io.spinagent.plugin.accounts.AccountTable;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.ClouddriverAccountBridge;
import io.spinagent.plugin.accounts.ClouddriverAccountDefinitions;
import io.spinagent.plugin.accounts.DynamicAccounts;
import io.spinagent.plugin.accounts.StreamsElsewhere;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.HighAvailability;
import io.spinagent.plugin.identity.ReplicaIdentity;
import io.spinagent.plugin.store.SpinAgentSchema;
import io.spinagent.plugin.tunnel.TunnelKubeconfigs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The account registry and what hangs off it: {@code spinagent_accounts} (when Clouddriver's SQL
 * database is there), Clouddriver account definitions (when its account storage is), and the
 * dynamic accounts of the REST API.
 */
@Configuration
public class AccountsConfiguration {

  private static final Logger log = LoggerFactory.getLogger(AccountsConfiguration.class);

  /** The table, or empty without Clouddriver's SQL database. */
  @Bean
  AccountStorage accountStorage(ObjectProvider<DSLContext> jooq) {
    DSLContext context = jooq.getIfAvailable();
    if (context == null) {
      return new AccountStorage(Optional.empty());
    }
    SpinAgentSchema.migrate(context);
    // Lenient: rows written by a newer plugin version during a rolling upgrade stay readable.
    ObjectMapper json =
        new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    return new AccountStorage(Optional.of(new AccountTable(context, json, Clock.systemUTC())));
  }

  /**
   * One thread for the table and Clouddriver's account storage, so both follow the registry in
   * order.
   */
  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService accountSyncWorker() {
    return Executors.newSingleThreadScheduledExecutor(
        runnable -> {
          Thread thread = new Thread(runnable, "spinagent-account-sync");
          thread.setDaemon(true);
          return thread;
        });
  }

  @Bean
  AccountRegistry accountRegistry(
      SpinAgentProperties properties,
      List<AccountLifecycleListener> listeners,
      ChangeSink sink,
      AccountStorage storage,
      ReplicaIdentity replica,
      ScheduledExecutorService accountSyncWorker,
      ObjectProvider<AccountDefinitionRepository> repository,
      ObjectProvider<AccountDefinitionMapper> mapper,
      ObjectProvider<TunnelKubeconfigs> tunnel) {
    List<AccountLifecycleListener> all = new ArrayList<>(listeners);
    if (sink instanceof AccountLifecycleListener listener && !all.contains(listener)) {
      all.add(listener);
    }
    ClouddriverAccountBridge bridge = null;
    if (storage.table().isPresent()) {
      AccountTable table = storage.table().get();
      // The recorder first: the bridge reads the row it writes.
      all.add(new AccountStateRecorder(table, replica.id(), accountSyncWorker));
      bridge = bridge(properties, table, repository, mapper, tunnel, accountSyncWorker);
      if (bridge != null) {
        all.add(bridge);
      }
    } else {
      log.warn(
          "SpinAgent runs without Clouddriver's SQL database (sql.enabled): what agents stream is"
              + " acknowledged and dropped, so nothing reaches Clouddriver's cache; accounts live"
              + " in memory only, dynamic accounts (POST /spinagent/accounts) are unavailable and"
              + " agent accounts do not become Clouddriver accounts");
    }
    AccountRegistry registry =
        new AccountRegistry(Clock.systemUTC(), properties.getAccounts().getGracePeriod(), all);
    if (bridge != null) {
      bridge.attach(registry);
    }
    storage
        .table()
        .ifPresent(
            table -> {
              restore(registry, table);
              Duration grace = properties.getAccounts().getGracePeriod();
              registry.setServedElsewhere(
                  name -> table.servedElsewhere(name, replica.id(), Instant.now().minus(grace)));
              long every = Math.max(1000, grace.toMillis() / 3);
              accountSyncWorker.scheduleWithFixedDelay(
                  () -> heartbeat(table, replica.id()), every, every, TimeUnit.MILLISECONDS);
            });
    return registry;
  }

  @Bean
  DynamicAccounts dynamicAccounts(
      AccountRegistry registry,
      SessionRegistry sessions,
      AccountStorage storage,
      SpinAgentProperties properties,
      ObjectProvider<AccountDefinitionRepository> repository,
      ObjectProvider<AccountDefinitionMapper> mapper,
      HighAvailability highAvailability) {
    Optional<ClouddriverAccountDefinitions> definitions =
        Optional.ofNullable(repository.getIfAvailable())
            .flatMap(
                r ->
                    Optional.ofNullable(mapper.getIfAvailable())
                        .map(m -> new ClouddriverAccountDefinitions(r, m, new ObjectMapper())));
    StreamsElsewhere streamsElsewhere =
        highAvailability
            .keeper()
            .<StreamsElsewhere>map(
                keeper ->
                    account -> keeper.liveOwnerElsewhere(account).map(AccountOwner::replicaId))
            .orElse(StreamsElsewhere.NONE);
    return new DynamicAccounts(
        registry,
        sessions,
        storage.table(),
        definitions,
        properties.getAccounts().getCommandTimeout(),
        streamsElsewhere);
  }

  private static ClouddriverAccountBridge bridge(
      SpinAgentProperties properties,
      AccountTable table,
      ObjectProvider<AccountDefinitionRepository> repository,
      ObjectProvider<AccountDefinitionMapper> mapper,
      ObjectProvider<TunnelKubeconfigs> tunnel,
      ScheduledExecutorService worker) {
    if (!properties.getAccounts().isClouddriverDefinitions()) {
      log.info(
          "spinagent.accounts.clouddriver-definitions is false: agent accounts stay out of"
              + " Clouddriver's account storage");
      return null;
    }
    AccountDefinitionRepository definitions = repository.getIfAvailable();
    AccountDefinitionMapper definitionMapper = mapper.getIfAvailable();
    if (definitions == null || definitionMapper == null) {
      log.warn(
          "Clouddriver's account storage is off, so agent accounts cannot become Clouddriver"
              + " accounts (Deck shows their cache, deploys fail with 'unknown account'). Set, in"
              + " clouddriver.yml: account.storage.enabled: true,"
              + " account.storage.kubernetes.enabled: true, credentials.poller.enabled: true,"
              + " credentials.poller.types.kubernetes.reloadFrequencyMs: 10000. Or set"
              + " spinagent.accounts.clouddriver-definitions: false to silence this.");
      return null;
    }
    return new ClouddriverAccountBridge(
        new ClouddriverAccountDefinitions(definitions, definitionMapper, new ObjectMapper()),
        table,
        name -> tunnel.getObject().kubeconfig(name),
        worker,
        properties.getAccounts().getDefinitionRetryBackoff());
  }

  private static void heartbeat(AccountTable table, String replicaId) {
    try {
      table.heartbeat(replicaId);
    } catch (RuntimeException e) {
      log.warn(
          "Cannot mark this replica's accounts as served in spinagent_accounts: {}",
          e.getMessage());
    }
  }

  /**
   * Accounts served or orphaned before this replica started wait as ORPHANED for their agents: a
   * served one gets a fresh grace period, an orphaned one keeps its clock. One another replica
   * serves is forgotten here when its grace period ends.
   */
  private static void restore(AccountRegistry registry, AccountTable table) {
    try {
      Instant now = Instant.now();
      List<AgentAccount> served =
          table.servedOrOrphaned().stream()
              .filter(row -> row.cluster() != null)
              .map(
                  row ->
                      new AgentAccount(
                          row.name(),
                          row.cluster(),
                          AccountState.ORPHANED,
                          row.state() == AccountState.ORPHANED ? row.stateSince() : now,
                          null,
                          List.of(),
                          row.lastError(),
                          null))
              .toList();
      registry.restore(table.inactiveNames(), served);
    } catch (RuntimeException e) {
      log.error(
          "Cannot read spinagent_accounts to restore accounts this replica served; they come back"
              + " as their agents reconnect",
          e);
    }
  }

  /** {@code spinagent_accounts}, when there is a database to hold it. */
  public record AccountStorage(Optional<AccountTable> table) {}
}
