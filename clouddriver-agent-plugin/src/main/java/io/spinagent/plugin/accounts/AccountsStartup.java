package io.spinagent.plugin.accounts;

import io.spinagent.plugin.config.StartupPhases;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The accounts' start-up work with Clouddriver's database ({@link StartupPhases#ACCOUNTS}: after
 * the schema migration, before ownership, the tunnel and the agent port). It registers the
 * registry's lifecycle listeners in the order they must hear of a change, restores the accounts
 * this replica served before it restarted, and then marks the accounts it serves as still served in
 * {@code spinagent_accounts} every third of the grace period, so that other replicas leave them be.
 */
public final class AccountsStartup implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(AccountsStartup.class);

  private final AccountRegistry registry;
  private final List<AccountLifecycleListener> listeners;
  private final AccountTable table;
  private final String replicaId;
  private final Duration gracePeriod;
  private final ScheduledExecutorService worker;
  private boolean listenersRegistered;
  private ScheduledFuture<?> heartbeat;

  /**
   * @param listeners in the order they hear of a change
   * @param worker the thread that writes {@code spinagent_accounts}
   */
  public AccountsStartup(
      AccountRegistry registry,
      List<AccountLifecycleListener> listeners,
      AccountTable table,
      String replicaId,
      Duration gracePeriod,
      ScheduledExecutorService worker) {
    this.registry = registry;
    this.listeners = List.copyOf(listeners);
    this.table = table;
    this.replicaId = replicaId;
    this.gracePeriod = gracePeriod;
    this.worker = worker;
  }

  @Override
  public synchronized void start() {
    if (!listenersRegistered) {
      listeners.forEach(registry::addListener);
      listenersRegistered = true;
      restore();
    }
    long every = Math.max(1000, gracePeriod.toMillis() / 3);
    heartbeat = worker.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() {
    if (heartbeat != null) {
      heartbeat.cancel(false);
      heartbeat = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return heartbeat != null;
  }

  @Override
  public int getPhase() {
    return StartupPhases.ACCOUNTS;
  }

  /**
   * Accounts served or orphaned before this replica started wait as ORPHANED for their agents,
   * bound to their principals: a served one gets a fresh grace period, an orphaned one keeps its
   * clock. One another replica serves is forgotten here when its grace period ends.
   */
  private void restore() {
    try {
      Instant now = Instant.now();
      List<StoredAccount> rows =
          table.servedOrOrphaned().stream().filter(row -> row.cluster() != null).toList();
      Map<String, String> principals = new HashMap<>();
      rows.stream()
          .filter(row -> row.boundPrincipal() != null)
          .forEach(row -> principals.put(row.name(), row.boundPrincipal()));
      List<AgentAccount> served =
          rows.stream()
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
      registry.restore(table.inactiveNames(), served, principals);
    } catch (RuntimeException e) {
      log.error(
          "Cannot read spinagent_accounts to restore accounts this replica served; they come back"
              + " as their agents reconnect",
          e);
    }
  }

  private void heartbeat() {
    try {
      table.heartbeat(replicaId);
    } catch (RuntimeException e) {
      log.warn(
          "Cannot mark this replica's accounts as served in spinagent_accounts: {}",
          e.getMessage());
    }
  }
}
