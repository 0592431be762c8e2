package io.spinagent.plugin.accounts;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.common.Backoff;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.config.StartupPhases;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Keeps Clouddriver's account storage in step with the registry: a served account has a {@code
 * kubernetes} definition pointing at the plugin's tunnel, an INACTIVE, deleted or expired one has
 * none. A definition SpinAgent did not write is never replaced or deleted: the account is FAILED
 * with a reason until an operator migrates or renames it.
 *
 * <p>Work runs on one thread, in the order the registry changed, so a quick ACTIVE → INACTIVE ends
 * with no definition. Failures are retried with backoff; the latest state always wins.
 *
 * <p>Every {@code spinagent.accounts.definition-check-interval} it also compares the definitions of
 * the ACTIVE accounts streamed to this replica with what it wrote: one changed or deleted outside
 * SpinAgent (through {@code /credentials} with the interceptor off, or in Clouddriver's {@code
 * accounts} table) is written again, logged and counted, instead of being reported as fine while
 * every deploy to the account fails. A definition of SpinAgent's written again for an account
 * switched off everywhere (a {@code /credentials} save that read it before the switch, or a script)
 * is removed again.
 *
 * <p>Off when Clouddriver has no account storage or {@code
 * spinagent.accounts.clouddriver-definitions} is false; it says so, and what to configure, when the
 * plugin starts ({@link StartupPhases#ACCOUNTS}).
 */
public final class ClouddriverAccountBridge implements AccountLifecycleListener, SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ClouddriverAccountBridge.class);
  private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

  private final AccountRegistry registry;
  private final Optional<ClouddriverAccountDefinitions> storage;
  private final SpinAgentProperties.Accounts settings;
  private final Backoff retries;
  private final boolean enabled;
  private final AccountTable table;
  private final Function<String, String> kubeconfigs;
  private final ScheduledExecutorService worker;
  private final MeterRegistry meters;
  private volatile boolean running;
  private ScheduledFuture<?> checks;

  /** The latest snapshot per account not yet applied; older ones are skipped. */
  private final Map<String, AgentAccount> latest = new ConcurrentHashMap<>();

  /** When the state last applied per account began: an older snapshot heard late is skipped. */
  private final Map<String, Instant> appliedSince = new ConcurrentHashMap<>();

  private final Map<String, Integer> attempts = new ConcurrentHashMap<>();

  /**
   * @param storage Clouddriver's account storage, when it has one
   * @param settings {@code spinagent.accounts}: whether to write definitions, and the first backoff
   *     of a retry
   * @param kubeconfigs the kubeconfig (YAML) through the tunnel for an account name
   * @param worker the thread that also writes {@code spinagent_accounts}
   * @param meters where the definitions written again are counted
   */
  public ClouddriverAccountBridge(
      AccountRegistry registry,
      Optional<ClouddriverAccountDefinitions> storage,
      SpinAgentProperties.Accounts settings,
      AccountTable table,
      Function<String, String> kubeconfigs,
      ScheduledExecutorService worker,
      MeterRegistry meters) {
    this.registry = registry;
    this.storage = storage;
    this.settings = settings;
    if (settings.getDefinitionRetryBackoff().isNegative()) {
      throw new IllegalArgumentException(
          "spinagent.accounts.definition-retry-backoff must not be negative, not "
              + settings.getDefinitionRetryBackoff());
    }
    if (settings.getDefinitionCheckInterval().isNegative()
        || settings.getDefinitionCheckInterval().isZero()) {
      throw new IllegalArgumentException(
          "spinagent.accounts.definition-check-interval must be positive, not "
              + settings.getDefinitionCheckInterval());
    }
    this.retries = Backoff.doubling(settings.getDefinitionRetryBackoff(), MAX_BACKOFF);
    this.enabled = settings.isClouddriverDefinitions() && storage.isPresent();
    this.table = table;
    this.kubeconfigs = kubeconfigs;
    this.worker = worker;
    this.meters = meters;
  }

  @Override
  public void start() {
    if (!settings.isClouddriverDefinitions()) {
      log.info(
          "spinagent.accounts.clouddriver-definitions is false: agent accounts stay out of"
              + " Clouddriver's account storage");
    } else if (storage.isEmpty()) {
      log.warn(
          "Clouddriver's account storage is off, so agent accounts cannot become Clouddriver"
              + " accounts (Deck shows their cache, deploys fail with 'unknown account'). Set, in"
              + " clouddriver.yml: account.storage.enabled: true,"
              + " account.storage.kubernetes.enabled: true, credentials.poller.enabled: true,"
              + " credentials.poller.types.kubernetes.reloadFrequencyMs: 10000. Or set"
              + " spinagent.accounts.clouddriver-definitions: false to silence this.");
    }
    if (enabled) {
      long interval = settings.getDefinitionCheckInterval().toMillis();
      checks =
          worker.scheduleWithFixedDelay(
              this::checkDefinitionsLogged, interval, interval, TimeUnit.MILLISECONDS);
    }
    running = true;
  }

  @Override
  public void stop() {
    if (checks != null) {
      checks.cancel(false);
      checks = null;
    }
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return StartupPhases.ACCOUNTS;
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    if (!enabled) {
      return;
    }
    if (account.state() == AccountState.ACTIVATING
        || account.state() == AccountState.ORPHANED
        || account.state() == AccountState.FAILED) {
      return; // the definition stays as it is until the account is ACTIVE or gone
    }
    // Listeners hear each change on the thread that made it, so two changes made on two threads can
    // arrive out of order (ACTIVE after the INACTIVE that followed it): the later state wins.
    latest.merge(
        account.name(),
        account,
        (held, heard) -> heard.stateSince().isBefore(held.stateSince()) ? held : heard);
    worker.execute(() -> applyLogged(account.name()));
  }

  /**
   * Runs {@link #apply} on the worker, logging what it throws: recording the failure or scheduling
   * the next retry failed, and the worker (a scheduled executor) would otherwise keep it unseen in
   * the task's future.
   */
  private void applyLogged(String name) {
    try {
      apply(name);
    } catch (RuntimeException e) {
      log.error(
          "Account '{}': updating Clouddriver's account definition failed and is not retried",
          name,
          e);
    }
  }

  private void checkDefinitionsLogged() {
    try {
      checkDefinitions();
    } catch (RuntimeException e) {
      log.warn(
          "Checking Clouddriver's account definitions failed ({}); the next check tries again",
          RootCause.messageOf(e),
          e);
    }
  }

  /**
   * Writes again the definitions of this replica's ACTIVE accounts that were changed or deleted
   * outside SpinAgent, and removes SpinAgent's definitions of its INACTIVE accounts written again
   * after the switch. Runs on the worker, so it never races a write the registry asked for; an
   * account with such a write pending is left to it.
   */
  void checkDefinitions() {
    List<AgentAccount> known = registry.all();
    List<AgentAccount> served =
        known.stream()
            .filter(a -> a.state() == AccountState.ACTIVE && a.cachingAgentId() != null)
            .toList();
    List<String> off =
        known.stream()
            .filter(a -> a.state() == AccountState.INACTIVE)
            .map(AgentAccount::name)
            .toList();
    if (served.isEmpty() && off.isEmpty()) {
      return;
    }
    Map<String, Map<String, Object>> stored = definitions().storedKubernetesDefinitions();
    writeAgainChanged(served, stored);
    removeWrittenWhileOff(off, stored);
  }

  private void writeAgainChanged(
      List<AgentAccount> served, Map<String, Map<String, Object>> stored) {
    for (AgentAccount account : served) {
      String name = account.name();
      Optional<StoredAccount> ours = table.find(name);
      if (latest.containsKey(name)
          || !ours.map(StoredAccount::clouddriverDefinition).orElse(false)) {
        continue;
      }
      Optional<String> drift =
          definitions().drift(tunnelDefinition(account, ours), stored.get(name));
      if (drift.isEmpty()) {
        continue;
      }
      log.warn(
          "Account '{}' (agent '{}'): its Clouddriver account definition is SpinAgent's, but {}"
              + " outside SpinAgent (through /credentials, or in Clouddriver's accounts table);"
              + " writing it again. Change the account in its agent's configuration or through"
              + " /spinagent/accounts",
          name,
          account.cachingAgentId(),
          drift.get());
      repaired(drift.get().startsWith("it was deleted") ? "deleted" : "changed");
      latest.put(name, account);
      apply(name);
    }
  }

  /**
   * An account switched off has no definition. One is back when a save that read it before the
   * switch lands after it (a {@code PUT /credentials} checked by Clouddriver with the definition it
   * read) or another writer restores it. It is removed when it is SpinAgent's: the tunnel one, or
   * one SpinAgent owns (written by it, or migrated). The shared record is read first: an account
   * switched on through another replica since is that replica's to write.
   */
  private void removeWrittenWhileOff(List<String> off, Map<String, Map<String, Object>> stored) {
    List<String> present =
        off.stream().filter(name -> stored.containsKey(name) && !latest.containsKey(name)).toList();
    if (present.isEmpty()) {
      return;
    }
    Map<String, StoredAccount> rows = table.find(present);
    for (String name : present) {
      StoredAccount row = rows.get(name);
      if (row == null || !row.inactive()) {
        continue;
      }
      boolean tunnel =
          Objects.equals(kubeconfigs.apply(name), stored.get(name).get("kubeconfigContents"));
      if (!tunnel && !ownsDefinition(Optional.of(row))) {
        continue; // another writer's account of that name: never SpinAgent's to delete
      }
      log.warn(
          "Account '{}' is INACTIVE, but Clouddriver has its definition again (saved after the"
              + " account was switched off, through /credentials or in Clouddriver's accounts"
              + " table); removing it. Switch the account on with PUT /spinagent/accounts/{}",
          name,
          name);
      repaired("written-while-inactive");
      definitions().delete(name);
      if (row.clouddriverDefinition()) {
        table.setClouddriverDefinition(name, false);
      }
    }
  }

  private void repaired(String change) {
    meters.counter("spinagent.accounts.definitions.repaired", "change", change).increment();
  }

  private void apply(String name) {
    AgentAccount account = latest.get(name);
    if (account == null) {
      return;
    }
    Instant applied = appliedSince.get(name);
    if (applied != null && account.stateSince().isBefore(applied)) {
      latest.remove(name, account); // heard after a later state was applied
      return;
    }
    try {
      if (account.state() == AccountState.ACTIVE) {
        write(account);
      } else {
        remove(account);
      }
      appliedSince.put(name, account.stateSince());
      latest.remove(name, account);
      attempts.remove(name);
    } catch (RuntimeException e) {
      int attempt = attempts.merge(name, 1, Integer::sum);
      Duration delay = retries.delay(attempt);
      String error = "cannot update Clouddriver's account definition: " + RootCause.messageOf(e);
      log.warn(
          "Account '{}' ({}): {}; retry {} in {}", name, account.state(), error, attempt, delay, e);
      // The retry first: the database that failed the write may fail the record of it too, and
      // the pending state, kept in latest, is then retried rather than left for good.
      ScheduledFuture<?> unused =
          worker.schedule(() -> applyLogged(name), delay.toMillis(), TimeUnit.MILLISECONDS);
      registry.recordError(name, error);
      recordFailure(name, error);
    }
  }

  private void recordFailure(String name, String error) {
    try {
      table.recordFailure(name, error);
    } catch (RuntimeException e) {
      log.warn(
          "Account '{}': cannot record in spinagent_accounts that {} ({}); the retry goes on",
          name,
          error,
          RootCause.messageOf(e));
    }
  }

  private void write(AgentAccount account) {
    String name = account.name();
    Optional<StoredAccount> stored = table.find(name);
    // A migrated account's original definition is SpinAgent's to replace once the agent serves it.
    if (!ownsDefinition(stored) && definitions().find(name).isPresent()) {
      String reason =
          "Clouddriver already has an account named '"
              + name
              + "' that SpinAgent did not create; SpinAgent leaves it untouched. Rename the agent's"
              + " account, or put the existing one under SpinAgent with POST"
              + " /spinagent/accounts/migrate";
      log.error("Account '{}' FAILED: {}", name, reason);
      table.recordFailure(name, reason);
      registry.markFailed(name, reason);
      return;
    }
    // Flag first: a crash between the two leaves a flag for a definition that may not exist, which
    // a
    // later removal tolerates; the other order would leave a definition nobody owns.
    table.setClouddriverDefinition(name, true);
    definitions().save(tunnelDefinition(account, stored));
    log.info(
        "Account '{}' is a Clouddriver Kubernetes account now (served by agent '{}', through the"
            + " tunnel)",
        name,
        account.cachingAgentId());
    registry.markRecovered(name);
  }

  /**
   * The definition SpinAgent writes for {@code account}: with the dynamic definition of {@code
   * stored}, when the account has one, for its metrics and custom resources.
   */
  private Map<String, Object> tunnelDefinition(
      AgentAccount account, Optional<StoredAccount> stored) {
    DynamicAccountSpec dynamic = stored.map(StoredAccount::definition).orElse(null);
    return definitions().tunnelDefinition(account, dynamic, kubeconfigs.apply(account.name()));
  }

  private void remove(AgentAccount account) {
    String name = account.name();
    // A migrated account is SpinAgent's, even before its agent served it and its original
    // definition was replaced: switched off or gone, Clouddriver must not reach the cluster itself.
    if (!ownsDefinition(table.find(name))) {
      return;
    }
    definitions().delete(name);
    table.setClouddriverDefinition(name, false);
    log.info(
        "Account '{}' ({}): its Clouddriver account definition is removed", name, account.state());
  }

  /**
   * Whether the account's Clouddriver definition is SpinAgent's: written by it, or, for a migrated
   * account, the original one, SpinAgent's from the migration on.
   */
  private static boolean ownsDefinition(Optional<StoredAccount> row) {
    return row.map(s -> s.clouddriverDefinition() || s.source() == AccountSource.MIGRATED)
        .orElse(false);
  }

  /** Present whenever the bridge is on: every change it applies goes through here. */
  private ClouddriverAccountDefinitions definitions() {
    return storage.orElseThrow();
  }
}
