package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.KubernetesConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.config.binding.AccountDefinitionException;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.Kind;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's cluster side: one {@link AccountWatcher} per account, started, stopped and restarted
 * as the configuration changes ({@link #apply}) or as Clouddriver adds, updates and removes dynamic
 * accounts by command ({@link #addDynamic}, {@link #updateDynamic}, {@link #removeDynamic}). An
 * account that cannot reach its cluster is retried on its own and never holds up the others.
 * Accounts start all at once or in groups ({@code kubernetes.cacheGroupSize}), share one set of
 * threads ({@link ClusterThreads}), and are watched once Clouddriver decides to cache them from
 * this agent ({@link #decided}).
 *
 * <p>Dynamic accounts live in memory only: they survive reconnects to Clouddriver and configuration
 * reloads, not a restart of the agent (Clouddriver sends them again when the agent reconnects).
 */
public final class ClusterManager implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterManager.class);

  /** What the rest of the agent (the stream to Clouddriver) hears from the cluster side. */
  public interface Listener {
    /**
     * The accounts that can be announced to Clouddriver changed; {@code accounts} is all of them.
     * Calls come one at a time, in the order the lists were taken; must return quickly.
     */
    void accountsChanged(List<AccountInfo> accounts);

    /** An account's health changed (syncing, ready, failed with an error). */
    default void accountHealth(String account, AccountHealth health, String error) {}
  }

  /**
   * How long stopping accounts waits for their loops to end; their requests are cancelled, so they
   * end at once unless a thread is stuck.
   */
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(3);

  private final Outbox outbox;
  private final ListBudget budget;
  private final int timeoutSeconds;
  private final ClusterOptions options;
  private final Listener listener;
  private final ClusterThreads threads;
  private final KubernetesRequestMeter requestMeter;
  private final StaggeredStart starts;
  private final Map<String, AccountWatcher> accounts = new LinkedHashMap<>();

  /**
   * Held while the accounts are listed and handed to the listener, so that lists reach it in the
   * order they were taken: an older list arriving last would withdraw an account just announced.
   */
  private final Object announcing = new Object();

  private volatile boolean progressReporting;
  private boolean closed;

  public ClusterManager(
      Outbox outbox,
      TasksConfig tasks,
      int timeoutSeconds,
      ClusterOptions options,
      Listener listener) {
    this(outbox, tasks, KubernetesConfig.CacheGroups.NONE, timeoutSeconds, options, listener);
  }

  /** A manager whose Kubernetes requests are counted nowhere (specs and benchmarks). */
  public ClusterManager(
      Outbox outbox,
      TasksConfig tasks,
      KubernetesConfig.CacheGroups cacheGroups,
      int timeoutSeconds,
      ClusterOptions options,
      Listener listener) {
    this(
        outbox,
        tasks,
        cacheGroups,
        timeoutSeconds,
        options,
        listener,
        // A composite with no registries in it: Micrometer's way of measuring nothing.
        new CompositeMeterRegistry());
  }

  /**
   * @param cacheGroups how accounts start ({@code kubernetes.cacheGroupSize}, {@code
   *     cacheGroupDelayMs})
   * @param meters where every account's Kubernetes requests are counted ({@link
   *     KubernetesRequestMeter})
   */
  public ClusterManager(
      Outbox outbox,
      TasksConfig tasks,
      KubernetesConfig.CacheGroups cacheGroups,
      int timeoutSeconds,
      ClusterOptions options,
      Listener listener,
      MeterRegistry meters) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.budget = new ListBudget(tasks.totalBudget(), tasks.budgetPerAccount());
    this.timeoutSeconds = timeoutSeconds;
    this.options = Objects.requireNonNull(options, "options");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.requestMeter = new KubernetesRequestMeter(meters);
    this.threads = new ClusterThreads();
    this.starts = new StaggeredStart(cacheGroups, threads.timers());
  }

  /**
   * Makes the running configured accounts match {@code configured}: new ones start, missing ones
   * stop (and are withdrawn from Clouddriver), changed ones restart. Unchanged ones and dynamic
   * accounts keep running untouched, except a dynamic account whose name the file now uses: the
   * file wins, and the dynamic account is replaced by the configured one.
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
        if (entry.getValue().isDynamic()) {
          if (next != null) {
            log.warn(
                "Account '{}': now configured in the file, which replaces the dynamic account of"
                    + " that name",
                entry.getKey());
            stopping.add(entry.getValue());
            it.remove();
          }
          continue;
        }
        if (next == null || !next.equals(entry.getValue().config())) {
          log.info(
              "Account '{}': {}",
              entry.getKey(),
              next == null ? "removed, stopping" : "changed, restarting");
          stopping.add(entry.getValue());
          it.remove();
        }
      }
      for (KubernetesAccountConfig config : wanted.values()) {
        if (!accounts.containsKey(config.name())) {
          starting.add(register(config, false));
        }
      }
    }
    stopAndStart(stopping, starting);
  }

  /**
   * Starts serving a dynamic account. Adding one this agent already serves with the same definition
   * changes nothing (Clouddriver sends its dynamic accounts again after a reconnect); with another
   * definition, the account restarts with it, as {@link #updateDynamic} would.
   *
   * @throws AccountDefinitionException when the kubeconfig cannot work or the name belongs to a
   *     configured account
   */
  public void addDynamic(KubernetesAccountConfig config) throws AccountDefinitionException {
    checkCredentials(config);
    AccountWatcher replaced;
    AccountWatcher started;
    synchronized (this) {
      checkOpen(config.name());
      AccountWatcher existing = accounts.get(config.name());
      if (existing != null && !existing.isDynamic()) {
        throw new AccountDefinitionException(
            config.name(),
            "name",
            "an account of this name is configured in the"
                + " agent's configuration file; a dynamic account needs a name of its own");
      }
      if (existing != null && existing.config().equals(config)) {
        return;
      }
      replaced = existing;
      started = register(config, true);
    }
    log.info(
        "Account '{}': {} by Clouddriver",
        config.name(),
        replaced == null ? "added" : "redefined, restarting");
    stopAndStart(replaced == null ? List.of() : List.of(replaced), List.of(started));
  }

  /**
   * Restarts a dynamic account with a new definition; the other accounts are untouched. An
   * unchanged definition changes nothing.
   *
   * @throws AccountDefinitionException when there is no such dynamic account or the kubeconfig
   *     cannot work
   */
  public void updateDynamic(KubernetesAccountConfig config) throws AccountDefinitionException {
    checkCredentials(config);
    AccountWatcher replaced;
    AccountWatcher started;
    synchronized (this) {
      checkOpen(config.name());
      replaced = dynamicAccount(config.name(), "changed");
      if (replaced.config().equals(config)) {
        return;
      }
      started = register(config, true);
    }
    log.info("Account '{}': updated by Clouddriver, restarting", config.name());
    stopAndStart(List.of(replaced), List.of(started));
  }

  /**
   * Stops serving a dynamic account and withdraws it from Clouddriver.
   *
   * @throws AccountDefinitionException when there is no such dynamic account
   */
  public void removeDynamic(String name) throws AccountDefinitionException {
    AccountWatcher removed;
    synchronized (this) {
      checkOpen(name);
      removed = dynamicAccount(name, "removed");
      accounts.remove(name);
    }
    log.info("Account '{}': removed by Clouddriver, stopping", name);
    stopAndStart(List.of(removed), List.of());
  }

  /** Dynamic accounts served now. */
  public synchronized int dynamicAccounts() {
    return (int) accounts.values().stream().filter(AccountWatcher::isDynamic).count();
  }

  /** Must hold the lock. */
  private AccountWatcher register(KubernetesAccountConfig config, boolean dynamic) {
    AccountWatcher watcher =
        new AccountWatcher(
            config,
            dynamic,
            outbox,
            budget.forAccount(),
            timeoutSeconds,
            options,
            threads,
            requestMeter,
            () -> progressReporting,
            new Events());
    accounts.put(config.name(), watcher);
    return watcher;
  }

  /** Must hold the lock. */
  private AccountWatcher dynamicAccount(String name, String verb)
      throws AccountDefinitionException {
    AccountWatcher watcher = accounts.get(name);
    if (watcher == null) {
      throw new AccountDefinitionException(
          name, "name", "this agent serves no account of this name");
    }
    if (!watcher.isDynamic()) {
      throw new AccountDefinitionException(
          name,
          "name",
          "the account is configured in the agent's configuration"
              + " file and cannot be "
              + verb
              + " by command; change the file instead");
    }
    return watcher;
  }

  /** Must hold the lock. */
  private void checkOpen(String name) throws AccountDefinitionException {
    if (closed) {
      throw new AccountDefinitionException(name, "name", "the agent is stopping");
    }
  }

  /**
   * Reads the kubeconfig now, so that one that cannot work is refused with the reason instead of
   * becoming an account that fails forever. The cluster itself is not contacted: an unreachable
   * cluster is a state the account recovers from, reported like any other.
   */
  private static void checkCredentials(KubernetesAccountConfig config)
      throws AccountDefinitionException {
    if (config.serviceAccount()) {
      if (!Files.isReadable(ClusterClients.SERVICE_ACCOUNT_DIR.resolve("token"))) {
        throw new AccountDefinitionException(
            config.name(),
            "service_account",
            "the agent does not run with a"
                + " Kubernetes service account ("
                + ClusterClients.SERVICE_ACCOUNT_DIR.resolve("token")
                + " is not"
                + " readable); send a kubeconfig instead");
      }
      return;
    }
    String field =
        config.kubeconfigContents().isPresent() ? "kubeconfig_contents" : "kubeconfig_file";
    try {
      Kubeconfigs.load(config);
    } catch (Kubeconfigs.InvalidKubeconfigException e) {
      throw new AccountDefinitionException(config.name(), field, e.getMessage(), e);
    }
  }

  /** Outside the lock: stopping waits (briefly) for the accounts' loops to end. */
  private void stopAndStart(List<AccountWatcher> stopping, List<AccountWatcher> starting) {
    stopAll(stopping);
    if (!stopping.isEmpty()) {
      announceAll();
    }
    starting.forEach(account -> starts.submit(account::start));
  }

  /** Stops every account at once, and waits at most {@link #STOP_TIMEOUT} for all of them. */
  private static void stopAll(List<AccountWatcher> stopping) {
    if (stopping.isEmpty()) {
      return;
    }
    CompletableFuture<?>[] stopped =
        stopping.stream().map(AccountWatcher::stop).toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(stopped).get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn(
          "Some of {} stopping accounts did not end their watches within {}",
          stopping.size(),
          STOP_TIMEOUT);
    }
  }

  /**
   * Clouddriver decided about an account: watch it (caching), or stop watching it (standby,
   * refused). Returns at once.
   */
  public void decided(AccountDecision decision) {
    AccountWatcher watcher;
    synchronized (this) {
      watcher = accounts.get(decision.getAccount());
    }
    if (watcher != null) {
      watcher.decided(decision);
    }
  }

  /**
   * Clouddriver asks for complete listings of {@code kinds} of {@code account} (every kind when
   * empty). Returns at once.
   */
  public void resyncRequested(String account, List<Kind> kinds) {
    AccountWatcher watcher;
    synchronized (this) {
      watcher = accounts.get(account);
    }
    if (watcher != null) {
      watcher.resyncRequested(List.copyOf(kinds));
    }
  }

  /**
   * Whether the session with Clouddriver takes watch progress (protocol version 2): set when a
   * session is established, before its decisions arrive.
   */
  public void setProgressReporting(boolean enabled) {
    this.progressReporting = enabled;
  }

  /** The threads the watches run on. */
  public ClusterThreads.Mode threadMode() {
    return threads.mode();
  }

  /** List-then-watch loops running now, across accounts: one per kind and namespace scope. */
  public synchronized int watchLoops() {
    return accounts.values().stream().mapToInt(AccountWatcher::loops).sum();
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

  /**
   * True when every account has completed its first listing (or resumed) of every kind it watches,
   * or is left to another agent or refused ({@link AccountStatus#isSynced}).
   */
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

  /**
   * Stops every account at once: their requests are cancelled rather than drained, and each loop
   * ends where it is. Returns within about {@link #STOP_TIMEOUT}, however many accounts there are.
   */
  @Override
  public void close() {
    List<AccountWatcher> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(accounts.values());
      accounts.clear();
    }
    starts.clear();
    stopAll(all);
    threads.close(Duration.ofMillis(500));
  }

  private void announceAll() {
    synchronized (announcing) {
      try {
        listener.accountsChanged(accountInfos());
      } catch (RuntimeException e) {
        log.error("Announcing the accounts failed", e);
      }
    }
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
      try {
        listener.accountHealth(account, health, error);
      } catch (RuntimeException e) {
        log.error("Reporting the health of account '{}' failed", account, e);
      }
    }
  }
}
