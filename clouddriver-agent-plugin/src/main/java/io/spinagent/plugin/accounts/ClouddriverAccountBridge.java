package io.spinagent.plugin.accounts;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Clouddriver's account storage in step with the registry: a served account has a {@code
 * kubernetes} definition pointing at the plugin's tunnel, an INACTIVE, deleted or expired one has
 * none. A definition SpinAgent did not write is never replaced or deleted: the account is FAILED
 * with a reason until an operator migrates or renames it.
 *
 * <p>Work runs on one thread, in the order the registry changed, so a quick ACTIVE → INACTIVE ends
 * with no definition. Failures are retried with backoff; the latest state always wins.
 */
public final class ClouddriverAccountBridge implements AccountLifecycleListener {

  private static final Logger log = LoggerFactory.getLogger(ClouddriverAccountBridge.class);
  private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

  private final ClouddriverAccountDefinitions definitions;
  private final AccountTable table;
  private final Function<String, String> kubeconfigs;
  private final ScheduledExecutorService worker;
  private final Duration firstBackoff;
  private volatile AccountRegistry registry;

  /** The latest snapshot per account not yet applied; older ones are skipped. */
  private final Map<String, AgentAccount> latest = new ConcurrentHashMap<>();

  private final Map<String, Integer> attempts = new ConcurrentHashMap<>();

  /**
   * @param kubeconfigs the kubeconfig (YAML) through the tunnel for an account name
   */
  public ClouddriverAccountBridge(
      ClouddriverAccountDefinitions definitions,
      AccountTable table,
      Function<String, String> kubeconfigs,
      ScheduledExecutorService worker,
      Duration firstBackoff) {
    this.definitions = definitions;
    this.table = table;
    this.kubeconfigs = kubeconfigs;
    this.worker = worker;
    this.firstBackoff = firstBackoff;
  }

  /** The registry to mark accounts FAILED in; set once it exists (it lists this bridge). */
  public void attach(AccountRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    if (account.state() == AccountState.ACTIVATING
        || account.state() == AccountState.ORPHANED
        || account.state() == AccountState.FAILED) {
      return; // the definition stays as it is until the account is ACTIVE or gone
    }
    latest.put(account.name(), account);
    worker.execute(() -> apply(account.name()));
  }

  private void apply(String name) {
    AgentAccount account = latest.get(name);
    if (account == null) {
      return;
    }
    try {
      if (account.state() == AccountState.ACTIVE) {
        write(account);
      } else {
        remove(account);
      }
      latest.remove(name, account);
      attempts.remove(name);
    } catch (RuntimeException e) {
      int attempt = attempts.merge(name, 1, Integer::sum);
      Duration delay = backoff(attempt);
      String error = "cannot update Clouddriver's account definition: " + rootMessage(e);
      log.warn(
          "Account '{}' ({}): {}; retry {} in {}", name, account.state(), error, attempt, delay, e);
      table.recordFailure(name, error);
      if (registry != null) {
        registry.recordError(name, error);
      }
      worker.schedule(() -> apply(name), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void write(AgentAccount account) {
    String name = account.name();
    Optional<StoredAccount> stored = table.find(name);
    // A migrated account's original definition is SpinAgent's to replace once the agent serves it.
    boolean ours =
        stored
            .map(s -> s.clouddriverDefinition() || s.source() == AccountSource.MIGRATED)
            .orElse(false);
    if (!ours && definitions.find(name).isPresent()) {
      String reason =
          "Clouddriver already has an account named '"
              + name
              + "' that SpinAgent did not create; SpinAgent leaves it untouched. Rename the agent's"
              + " account, or put the existing one under SpinAgent with POST"
              + " /spinagent/accounts/migrate";
      log.error("Account '{}' FAILED: {}", name, reason);
      table.recordFailure(name, reason);
      if (registry != null) {
        registry.markFailed(name, reason);
      }
      return;
    }
    // Flag first: a crash between the two leaves a flag for a definition that may not exist, which
    // a
    // later removal tolerates; the other order would leave a definition nobody owns.
    table.setClouddriverDefinition(name, true);
    definitions.save(definitions.tunnelDefinition(account, kubeconfigs.apply(name)));
    log.info(
        "Account '{}' is a Clouddriver Kubernetes account now (served by agent '{}', through the"
            + " tunnel)",
        name,
        account.cachingAgentId());
    if (registry != null) {
      registry.markRecovered(name);
    }
  }

  private void remove(AgentAccount account) {
    String name = account.name();
    boolean ours = table.find(name).map(StoredAccount::clouddriverDefinition).orElse(false);
    if (!ours) {
      return;
    }
    definitions.delete(name);
    table.setClouddriverDefinition(name, false);
    log.info(
        "Account '{}' ({}): its Clouddriver account definition is removed", name, account.state());
  }

  private Duration backoff(int attempt) {
    long millis = firstBackoff.toMillis() << Math.min(attempt - 1, 16);
    return millis > MAX_BACKOFF.toMillis() ? MAX_BACKOFF : Duration.ofMillis(millis);
  }

  private static String rootMessage(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }
}
