package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.spinagent.agent.config.CustomResourceConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.common.Backoff;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.ClusterIdentity;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.KindProblem;
import io.spinagent.protocol.v1.Permissions;
import io.spinagent.protocol.v1.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import okhttp3.ConnectionPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one account does. Its own work (connect: client, cluster identity, discovery,
 * permission checks; decisions; rediscovery) runs as tasks one at a time on the shared account
 * workers, and its watches as {@link KindWatch}es on the shared watch executor: an account owns no
 * thread (see {@link ClusterThreads}).
 *
 * <ol>
 *   <li>Connects, with backoff until it works, and announces the account to Clouddriver.
 *   <li>Waits for Clouddriver's decision. Only a caching account is watched: per kind,
 *       Clouddriver's resume point is used when it is recent enough ({@code
 *       maxResumableResourceAgeMs}) and no complete listing is required; otherwise the kind is
 *       listed. A standby or refused account keeps its connection (Clouddriver's relayed requests
 *       use it) but watches nothing.
 *   <li>Discovers again periodically and when CustomResourceDefinitions change.
 * </ol>
 *
 * <p>Longer than most classes because these steps share the account's state (connection, discovery,
 * decision), which only the account's own tasks touch, one at a time; split up, each part would
 * need that confinement too. The kinds it watches are {@link AccountWatches}'.
 */
final class AccountWatcher implements KindWatch.Account {

  private static final Logger log = LoggerFactory.getLogger(AccountWatcher.class);
  private static final Duration CRD_SETTLE = Duration.ofMillis(500);

  /** What the manager learns from an account. */
  interface Events {
    void announced(String account, AccountInfo info);

    void health(String account, AccountHealth health, String error);
  }

  private final KubernetesAccountConfig config;
  private final boolean dynamic;
  private final Outbox outbox;
  private final ListBudget.Account budget;
  private final int timeoutSeconds;
  private final ClusterOptions options;
  private final Backoff retries;
  private final ClusterThreads threads;
  private final KubernetesRequestMeter requestMeter;
  private final BooleanSupplier progressEnabled;
  private final Events events;
  private final Executor serial;
  private final Set<String> omitNamespaces;
  private final AtomicBoolean rediscoveryPending = new AtomicBoolean();

  private final AccountWatches watches;

  // Touched only by the account's tasks, one at a time.
  private List<ApiResource> selected = List.of();
  private AccountDecision decision;

  /** Failures to connect since the last success: how long the next retry waits. */
  private int failures;

  /** {@link Outbox#suspensions} when the running watches started. */
  private long suspensionsWatched;

  // Read by status() and stop() from other threads.
  private volatile boolean stopped;
  private volatile KubeHttp http;
  private volatile ClusterIdentity identity;
  private volatile List<KindProblem> unwatchable = List.of();
  private volatile ScheduledFuture<?> retry;
  private volatile ScheduledFuture<?> rediscovery;
  private volatile AccountState state = AccountState.CONNECTING;
  private volatile String error;
  private final AtomicInteger attempts = new AtomicInteger();
  private final ConnectionPool connections;
  private volatile AccountInfo info;

  AccountWatcher(
      KubernetesAccountConfig config,
      boolean dynamic,
      Outbox outbox,
      ListBudget.Account budget,
      int timeoutSeconds,
      ClusterOptions options,
      ClusterThreads threads,
      KubernetesRequestMeter requestMeter,
      BooleanSupplier progressEnabled,
      Events events) {
    this.config = config;
    this.dynamic = dynamic;
    this.outbox = outbox;
    this.budget = budget;
    this.timeoutSeconds = timeoutSeconds;
    this.options = options;
    this.threads = threads;
    this.connections = threads.connections();
    this.requestMeter = requestMeter;
    this.progressEnabled = progressEnabled;
    this.events = events;
    this.serial = threads.serialExecutor();
    this.omitNamespaces = Set.copyOf(config.omitNamespaces());
    this.retries = Backoff.doubling(options.retryBaseDelay(), options.retryMaxDelay());
    this.watches = new AccountWatches(config, options, this);
  }

  KubernetesAccountConfig config() {
    return config;
  }

  @Override
  public String name() {
    return config.name();
  }

  /** Added by a command from Clouddriver, not configured in the file. */
  boolean isDynamic() {
    return dynamic;
  }

  Optional<AccountInfo> info() {
    return Optional.ofNullable(info);
  }

  /** Starts connecting; returns at once. */
  void start() {
    run(this::connect);
  }

  /** Clouddriver decided about the account (again); applied once the account is connected. */
  void decided(AccountDecision decision) {
    run(
        () -> {
          this.decision = decision;
          applyDecision();
        });
  }

  /** Clouddriver asks for complete listings of {@code kinds} (all kinds when empty). */
  void resyncRequested(List<Kind> kinds) {
    run(() -> watches.requestListings(kinds, "Clouddriver asked for it"));
  }

  /**
   * Stops the account: cancels its requests and timers and ends its loops, without waiting.
   *
   * @return completes once every loop has ended
   */
  CompletableFuture<Void> stop() {
    stopped = true;
    state = AccountState.STOPPED;
    cancel(retry);
    cancel(rediscovery);
    return watches.close();
  }

  AccountStatus status() {
    List<String> watched = new ArrayList<>();
    int objects = 0;
    String watchError = null;
    for (KindWatch watch : watches.snapshot()) {
      watched.add(watch.resource().qualifiedKind());
      objects += watch.size();
      String kindError = watch.lastError();
      if (watchError == null && kindError != null) {
        watchError = watch.resource() + ": " + kindError;
      }
    }
    ClusterIdentity id = identity;
    List<String> denied =
        unwatchable.stream().map(p -> WatchableKinds.kindName(p) + ": " + p.getReason()).toList();
    // While watching, a failing watch (e.g. the API server went away after the sync) is the error.
    String shownError = error != null ? error : watchError;
    return new AccountStatus(
        name(),
        state,
        shownError,
        id == null ? null : id.getApiServerHost(),
        id == null ? null : id.getKubernetesVersion(),
        watched,
        denied,
        objects,
        attempts.get(),
        dynamic);
  }

  /** List-then-watch loops running now. */
  int loops() {
    return watches.snapshot().stream().mapToInt(KindWatch::loops).sum();
  }

  /** The account's API client once connected: Clouddriver's relayed requests use it. */
  Optional<ApiClient> apiClient() {
    return Optional.ofNullable(http).map(KubeHttp::client);
  }

  // ------------------------------------------------------------------------- KindWatch.Account

  @Override
  public Outbox outbox() {
    return outbox;
  }

  @Override
  public ListBudget.Account budget() {
    return budget;
  }

  @Override
  public ExecutorService watches() {
    return threads.watches();
  }

  @Override
  public ScheduledExecutorService timers() {
    return threads.timers();
  }

  @Override
  public boolean progressEnabled() {
    return progressEnabled.getAsBoolean();
  }

  @Override
  public Duration progressInterval() {
    return options.progressInterval();
  }

  @Override
  public boolean includes(String namespace) {
    return omitNamespaces.isEmpty() || !omitNamespaces.contains(namespace);
  }

  @Override
  public void readinessChanged() {
    run(this::updateReadiness);
  }

  @Override
  public void crdChanged() {
    if (rediscoveryPending.compareAndSet(false, true)) {
      log.info("Account '{}': CustomResourceDefinitions changed, discovering again", name());
      try {
        ScheduledFuture<?> unused =
            threads
                .timers()
                .schedule(
                    () -> {
                      rediscoveryPending.set(false);
                      run(this::rediscover);
                    },
                    CRD_SETTLE.toMillis(),
                    TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        rediscoveryPending.set(false);
      }
    }
  }

  // ------------------------------------------------------------------------------------ tasks

  private interface Task {
    void run() throws InterruptedException;
  }

  /** Runs {@code task} after the account's earlier tasks, unless the account stops first. */
  private void run(Task task) {
    if (stopped) {
      return;
    }
    try {
      serial.execute(
          () -> {
            if (stopped) {
              return;
            }
            try {
              task.run();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
              log.error("Account '{}': unexpected error", name(), e);
            }
          });
    } catch (RejectedExecutionException stopping) {
      // The agent is stopping.
    }
  }

  private void connect() throws InterruptedException {
    attempts.incrementAndGet();
    try {
      ClusterClients.Connection connection = ClusterClients.connect(config, timeoutSeconds);
      requestMeter.instrument(connection.client());
      KubeHttp connected =
          new KubeHttp(
              connection.client(), timeoutSeconds, connections, threads.singleUseConnections());
      http = connected;
      List<ApiResource> resources;
      budget.acquire();
      try {
        ResourceDiscovery discovery = new ResourceDiscovery(connected);
        String gitVersion = discovery.gitVersion();
        identity =
            ClusterIdentity.newBuilder()
                .setApiServerHost(connection.apiServerHost())
                .setCaFingerprintSha256(connection.caFingerprintSha256())
                .setKubernetesVersion(gitVersion == null ? "" : gitVersion)
                .build();
        resources = allowed(discovery);
      } finally {
        budget.release();
      }
      selected = resources;
      error = null;
      failures = 0;
      log.info(
          "Account '{}': connected to {} ({}), {} kinds to watch{}",
          name(),
          identity.getApiServerHost(),
          identity.getKubernetesVersion(),
          selected.size(),
          unwatchable.isEmpty() ? "" : ", " + unwatchable.size() + " kinds not permitted");
      state = AccountState.WAITING;
      long every = options.rediscoveryInterval().toMillis();
      rediscovery =
          threads
              .timers()
              .scheduleWithFixedDelay(
                  () -> run(this::rediscover), every, every, TimeUnit.MILLISECONDS);
      if (stopped) {
        cancel(rediscovery);
        return;
      }
      announce();
      applyDecision();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      if (stopped) {
        return;
      }
      state = AccountState.FAILED;
      error = describe(e);
      Duration delay = retries.delay(++failures);
      log.warn(
          "Account '{}': cannot watch the cluster, retrying in {} ms: {}",
          name(),
          delay.toMillis(),
          error);
      events.health(name(), AccountHealth.ACCOUNT_HEALTH_FAILED, error);
      try {
        retry =
            threads
                .timers()
                .schedule(() -> run(this::connect), delay.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException stopping) {
        return;
      }
    }
  }

  static String describe(Throwable e) {
    if (e instanceof ApiException api) {
      if (api.getCode() == 401) {
        return "401 Unauthorized: the API server did not accept the account's credentials";
      }
      if (api.getCode() == 403) {
        return "403 Forbidden: " + api.getMessage();
      }
      if (api.getCode() == 0 && api.getCause() != null) {
        return "cannot reach the API server: " + api.getCause();
      }
    }
    String message = e.getMessage();
    return message == null ? e.toString() : message;
  }

  /** Starts, keeps or stops the watches as the latest decision says. */
  private void applyDecision() throws InterruptedException {
    AccountDecision d = decision;
    if (d == null || http == null || state == AccountState.FAILED) {
      return; // connect() applies it once connected
    }
    if (!d.getAccepted()) {
      stopWatches();
      state = AccountState.REFUSED;
      error = "refused by Clouddriver: " + d.getReason();
      return;
    }
    if (d.getRole() != Role.ROLE_CACHING) {
      stopWatches();
      state = AccountState.STANDBY;
      error = null;
      return;
    }
    error = null;
    long suspensions = outbox.suspensions(name());
    if (suspensions != suspensionsWatched && !watches.isEmpty()) {
      // The outbox dropped what these watches had put and Clouddriver had not committed (the
      // account was withdrawn meanwhile): start again from what Clouddriver holds.
      log.info(
          "Account '{}': changes not yet committed were dropped while it was withdrawn; starting"
              + " its watches again from Clouddriver's resume points",
          name());
      watches.stopAll();
    }
    suspensionsWatched = suspensions;
    if (state != AccountState.SYNCING && state != AccountState.READY) {
      state = AccountState.SYNCING;
      events.health(name(), AccountHealth.ACCOUNT_HEALTH_SYNCING, "");
    }
    watches.apply(d, selected, http);
    updateReadiness();
  }

  private void stopWatches() {
    if (!watches.isEmpty()) {
      log.info("Account '{}': not caching from this agent, stopping its watches", name());
      watches.stopAll();
    }
  }

  /** Discovers what the account may watch; what is denied goes to {@link #unwatchable}. */
  private List<ApiResource> allowed(ResourceDiscovery discovery) throws ApiException {
    WatchableKinds found = WatchableKinds.find(discovery.discover(), config, http);
    unwatchable = found.denied();
    return found.allowed();
  }

  private void rediscover() throws InterruptedException {
    if (http == null) {
      return;
    }
    List<ApiResource> resources;
    try {
      budget.acquire();
      try {
        resources = allowed(new ResourceDiscovery(http));
      } finally {
        budget.release();
      }
    } catch (ApiException | RuntimeException e) {
      log.warn(
          "Account '{}': discovery failed, keeping the current watches: {}", name(), describe(e));
      return;
    }
    selected = resources;
    announce();
    if (state != AccountState.SYNCING && state != AccountState.READY) {
      return;
    }
    watches.reconcile(selected, http);
    updateReadiness();
  }

  /** READY once every selected kind is watched and ready; events are driven by the kinds. */
  private void updateReadiness() {
    if (state != AccountState.SYNCING && state != AccountState.READY) {
      return;
    }
    boolean all = watches.allReady(selected);
    if (all && state == AccountState.SYNCING) {
      state = AccountState.READY;
      log.info("Account '{}': synced {} kinds", name(), selected.size());
      events.health(name(), AccountHealth.ACCOUNT_HEALTH_READY, "");
    } else if (!all && state == AccountState.READY) {
      state = AccountState.SYNCING;
    }
  }

  private void announce() {
    AccountInfo.Builder builder =
        AccountInfo.newBuilder()
            .setName(name())
            .setCluster(identity)
            .addAllNamespaces(config.namespaces())
            .addAllOmitNamespaces(config.omitNamespaces())
            .addAllKinds(selected.stream().map(ApiResource::toKind).toList())
            .setPermissions(
                Permissions.newBuilder()
                    .addAllRead(config.permissions().read())
                    .addAllWrite(config.permissions().write()))
            .setOnlySpinnakerManaged(config.onlySpinnakerManaged())
            .addAllUnwatchableKinds(unwatchable)
            .setDynamic(dynamic)
            .addAllCustomResources(
                config.customResources().stream().map(CustomResourceConfig::toProto).toList());
    config.metrics().ifPresent(builder::setMetrics);
    AccountInfo next = builder.build();
    if (!next.equals(info)) {
      info = next;
      events.announced(name(), next);
    }
  }

  private static void cancel(ScheduledFuture<?> future) {
    if (future != null) {
      future.cancel(false);
    }
  }
}
