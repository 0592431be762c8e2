package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's cluster side: one {@link AccountWatcher} per configured account, started, stopped
 * and restarted as the configuration changes ({@link #apply}). An account that cannot reach its
 * cluster is retried on its own and never holds up the others.
 */
public final class ClusterManager implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterManager.class);

  /** What the rest of the agent (the stream to Clouddriver) hears from the cluster side. */
  public interface Listener {
    /** The accounts that can be announced to Clouddriver changed; {@code accounts} is all of them. */
    void accountsChanged(List<AccountInfo> accounts);

    /** An account's health changed (syncing, ready, failed with an error). */
    default void accountHealth(String account, AccountHealth health, String error) {}
  }

  private final Outbox outbox;
  private final ListBudget budget;
  private final int timeoutSeconds;
  private final ClusterOptions options;
  private final Listener listener;
  private final Map<String, AccountWatcher> accounts = new LinkedHashMap<>();
  private boolean closed;

  public ClusterManager(Outbox outbox, TasksConfig tasks, int timeoutSeconds, Listener listener) {
    this(outbox, tasks, timeoutSeconds, ClusterOptions.DEFAULTS, listener);
  }

  public ClusterManager(Outbox outbox, TasksConfig tasks, int timeoutSeconds, ClusterOptions options,
      Listener listener) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.budget = new ListBudget(tasks.totalBudget(), tasks.budgetPerAccount());
    this.timeoutSeconds = timeoutSeconds;
    this.options = Objects.requireNonNull(options, "options");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Makes the running accounts match {@code configured}: new ones start, missing ones stop (and are
   * withdrawn from Clouddriver), changed ones restart. Unchanged ones keep running untouched.
   */
  public void apply(List<KubernetesAccountConfig> configured) {
    List<AccountWatcher> stopping = new ArrayList<>();
    List<AccountWatcher> starting = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      Map<String, KubernetesAccountConfig> wanted = new LinkedHashMap<>();
      configured.forEach(c -> wanted.put(c.name(), c));
      for (var it = accounts.entrySet().iterator(); it.hasNext(); ) {
        var entry = it.next();
        KubernetesAccountConfig next = wanted.get(entry.getKey());
        if (next == null || !next.equals(entry.getValue().config())) {
          log.info("Account '{}': {}", entry.getKey(), next == null ? "removed, stopping" : "changed, restarting");
          stopping.add(entry.getValue());
          it.remove();
        }
      }
      for (KubernetesAccountConfig config : wanted.values()) {
        if (!accounts.containsKey(config.name())) {
          AccountWatcher watcher = new AccountWatcher(config, outbox, budget.forAccount(), timeoutSeconds, options,
              new Events());
          accounts.put(config.name(), watcher);
          starting.add(watcher);
        }
      }
    }
    stopping.forEach(AccountWatcher::stop);
    if (!stopping.isEmpty()) {
      announceAll();
    }
    starting.forEach(AccountWatcher::start);
  }

  /** Clouddriver needs a complete listing of {@code account}; returns at once. */
  public void resyncRequired(String account) {
    AccountWatcher watcher;
    synchronized (this) {
      watcher = accounts.get(account);
    }
    if (watcher != null) {
      watcher.resyncRequired();
    }
  }

  /** The API client of a connected account, for requests Clouddriver relays through the agent. */
  public synchronized Optional<ApiClient> apiClient(String account) {
    return Optional.ofNullable(accounts.get(account)).flatMap(AccountWatcher::apiClient);
  }

  public synchronized List<AccountStatus> statuses() {
    return accounts.values().stream().map(AccountWatcher::status).toList();
  }

  public synchronized Optional<AccountStatus> status(String account) {
    return Optional.ofNullable(accounts.get(account)).map(AccountWatcher::status);
  }

  /** True when every account has completed its first listing of every kind it watches. */
  public synchronized boolean allSynced() {
    return accounts.values().stream().allMatch(a -> a.status().isSynced());
  }

  /** Lists running now, across all accounts (bounded by {@code tasks.totalBudget}). */
  public int listsInFlight() {
    return budget.inUse();
  }

  public synchronized List<AccountInfo> accountInfos() {
    return accounts.values().stream().flatMap(a -> a.info().stream()).toList();
  }

  @Override
  public void close() {
    List<AccountWatcher> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(accounts.values());
      accounts.clear();
    }
    all.forEach(AccountWatcher::stop);
  }

  private void announceAll() {
    listener.accountsChanged(accountInfos());
  }

  private final class Events implements AccountWatcher.Events {
    @Override
    public void announced(String account, AccountInfo info) {
      synchronized (ClusterManager.this) {
        if (closed || !accounts.containsKey(account)) {
          return;
        }
      }
      announceAll();
    }

    @Override
    public void health(String account, AccountHealth health, String error) {
      listener.accountHealth(account, health, error);
    }
  }
}
