package io.spinagent.agent.cluster;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.ClusterIdentity;
import io.spinagent.protocol.v1.KindProblem;
import io.spinagent.protocol.v1.Permissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one account does, on its own thread: connect (client, cluster identity, discovery,
 * permission checks) with backoff until it works, then run a {@link KindWatch} per watched
 * resource, send each kind's first complete listing once it has synced, and discover again
 * periodically and when CustomResourceDefinitions change.
 */
final class AccountWatcher {

  private static final Logger log = LoggerFactory.getLogger(AccountWatcher.class);
  private static final Duration SYNC_POLL = Duration.ofMillis(100);
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
  private final Events events;
  private final ScheduledThreadPoolExecutor thread;
  private final AtomicBoolean rediscoveryPending = new AtomicBoolean();

  // Touched only on the account's thread, read through volatile snapshots.
  private final Map<String, KindWatch> watches = new LinkedHashMap<>();
  private volatile KubeHttp http;
  private volatile ClusterIdentity identity;
  private volatile List<KindProblem> unwatchable = List.of();
  private Duration nextDelay;
  private ScheduledFuture<?> syncPoll;
  private ScheduledFuture<?> rediscovery;
  private volatile AccountState state = AccountState.CONNECTING;
  private volatile String error;
  private volatile int attempts;
  private volatile AccountInfo info;
  private volatile List<KindWatch> watchSnapshot = List.of();

  AccountWatcher(
      KubernetesAccountConfig config,
      boolean dynamic,
      Outbox outbox,
      ListBudget.Account budget,
      int timeoutSeconds,
      ClusterOptions options,
      Events events) {
    this.config = config;
    this.dynamic = dynamic;
    this.outbox = outbox;
    this.budget = budget;
    this.timeoutSeconds = timeoutSeconds;
    this.options = options;
    this.events = events;
    this.nextDelay = options.retryBaseDelay();
    this.thread =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread t = new Thread(runnable, "spinagent-account-" + config.name());
              t.setDaemon(true);
              return t;
            });
    thread.setRemoveOnCancelPolicy(true);
  }

  KubernetesAccountConfig config() {
    return config;
  }

  String name() {
    return config.name();
  }

  /** Added by a command from Clouddriver, not configured in the file. */
  boolean isDynamic() {
    return dynamic;
  }

  Optional<AccountInfo> info() {
    return Optional.ofNullable(info);
  }

  void start() {
    try {
      thread.execute(this::connect);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Stopped before it started: a configuration reload and a command raced for the same name.
    }
  }

  /**
   * Sends a complete listing of every kind that has synced (the others send theirs when they do).
   */
  void resyncRequired() {
    run(
        () -> {
          for (KindWatch watch : watches.values()) {
            if (watch.isForwarding()) {
              watch.resync();
            }
          }
        });
  }

  void stop() {
    state = AccountState.STOPPED;
    thread.shutdownNow();
    watchSnapshot.forEach(KindWatch::stop);
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    watches.values().forEach(KindWatch::stop);
  }

  AccountStatus status() {
    List<String> watched = new ArrayList<>();
    int objects = 0;
    String watchError = null;
    for (KindWatch watch : watchSnapshot) {
      watched.add(watch.resource().qualifiedKind());
      objects += watch.size();
      if (watchError == null && watch.lastError() != null) {
        watchError = watch.resource() + ": " + watch.lastError();
      }
    }
    ClusterIdentity id = identity;
    List<String> denied =
        unwatchable.stream().map(p -> kindName(p) + ": " + p.getReason()).toList();
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
        attempts,
        dynamic);
  }

  private static String kindName(KindProblem problem) {
    return problem.getKind().getGroup().isEmpty()
        ? problem.getKind().getKind()
        : problem.getKind().getKind() + "." + problem.getKind().getGroup();
  }

  // ---------------------------------------------------------------------------------------------

  private void run(Task task) {
    if (thread.isShutdown()) {
      return;
    }
    try {
      thread.execute(
          () -> {
            try {
              task.run();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
              log.error("Account '{}': unexpected error", name(), e);
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException ignored) {
      // Stopping.
    }
  }

  private interface Task {
    void run() throws InterruptedException;
  }

  /** The account's API client once connected: Clouddriver's relayed requests use it. */
  Optional<ApiClient> apiClient() {
    return Optional.ofNullable(http).map(KubeHttp::client);
  }

  private void connect() {
    if (state == AccountState.STOPPED) {
      return;
    }
    attempts++;
    try {
      ClusterClients.Connection connection = ClusterClients.connect(config, timeoutSeconds);
      http = new KubeHttp(connection.client(), timeoutSeconds);
      ResourceDiscovery discovery = new ResourceDiscovery(http);
      String gitVersion = discovery.gitVersion();
      identity =
          ClusterIdentity.newBuilder()
              .setApiServerHost(connection.apiServerHost())
              .setCaFingerprintSha256(connection.caFingerprintSha256())
              .setKubernetesVersion(gitVersion == null ? "" : gitVersion)
              .build();
      List<ApiResource> selected = allowed(discovery.discover());
      state = AccountState.SYNCING;
      error = null;
      nextDelay = options.retryBaseDelay();
      log.info(
          "Account '{}': connected to {} ({}), watching {} kinds{}",
          name(),
          identity.getApiServerHost(),
          identity.getKubernetesVersion(),
          selected.size(),
          unwatchable.isEmpty() ? "" : ", " + unwatchable.size() + " kinds not permitted");
      reconcileWatches(selected);
      announce();
      events.health(name(), AccountHealth.ACCOUNT_HEALTH_SYNCING, "");
      syncPoll =
          thread.scheduleWithFixedDelay(
              this::pollSync, 0, SYNC_POLL.toMillis(), TimeUnit.MILLISECONDS);
      long every = options.rediscoveryInterval().toMillis();
      rediscovery =
          thread.scheduleWithFixedDelay(this::rediscover, every, every, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (state == AccountState.STOPPED || Thread.currentThread().isInterrupted()) {
        return;
      }
      state = AccountState.FAILED;
      error = describe(e);
      log.warn(
          "Account '{}': cannot watch the cluster, retrying in {} ms: {}",
          name(),
          nextDelay.toMillis(),
          error);
      events.health(name(), AccountHealth.ACCOUNT_HEALTH_FAILED, error);
      try {
        thread.schedule(this::connect, nextDelay.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException ignored) {
        return;
      }
      long doubled = Math.min(nextDelay.toMillis() * 2, options.retryMaxDelay().toMillis());
      nextDelay = Duration.ofMillis(doubled);
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

  /**
   * Selected by configuration, then checked against RBAC; what is denied goes to {@link
   * #unwatchable}.
   */
  private List<ApiResource> allowed(List<ApiResource> discovered) throws ApiException {
    List<ApiResource> selected = KindSelection.select(discovered, config);
    AccessReview review = new AccessReview(http.client());
    List<ApiResource> allowed = new ArrayList<>();
    List<KindProblem> denied = new ArrayList<>();
    for (ApiResource resource : selected) {
      Optional<String> reason;
      try {
        reason = review.denied(resource, config.namespaces());
      } catch (ApiException e) {
        if (e.getCode() == 401 || e.getCode() == 0) {
          throw e;
        }
        // The review itself is not allowed or not served: try to watch, and report failures then.
        log.debug(
            "Account '{}': access review for {} failed: {}", name(), resource, e.getMessage());
        reason = Optional.empty();
      }
      if (reason.isPresent()) {
        denied.add(
            KindProblem.newBuilder().setKind(resource.toKind()).setReason(reason.get()).build());
      } else {
        allowed.add(resource);
      }
    }
    unwatchable = List.copyOf(denied);
    if (!denied.isEmpty()) {
      log.warn(
          "Account '{}': not permitted to watch {}",
          name(),
          denied.stream().map(AccountWatcher::kindName).toList());
    }
    return allowed;
  }

  private void reconcileWatches(List<ApiResource> wanted) {
    Map<String, ApiResource> byKey = new LinkedHashMap<>();
    wanted.forEach(r -> byKey.put(key(r), r));
    for (var it = watches.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!byKey.containsKey(entry.getKey())) {
        log.info(
            "Account '{}': {} is no longer served or selected, stopping its watch",
            name(),
            entry.getValue().resource());
        entry.getValue().stop();
        it.remove();
      }
    }
    String labelSelector =
        config.onlySpinnakerManaged() ? "app.kubernetes.io/managed-by=spinnaker" : null;
    for (ApiResource resource : byKey.values()) {
      if (watches.containsKey(key(resource))) {
        continue;
      }
      boolean metadataOnly = resource.isSecret() && options.scrubSecrets();
      ObjectScrubber scrubber = new ObjectScrubber(resource.isSecret() && options.scrubSecrets());
      Runnable afterChange = resource.isCustomResourceDefinition() ? this::crdChanged : () -> {};
      KindWatch watch =
          new KindWatch(
              name(),
              resource,
              config.namespaces(),
              java.util.Set.copyOf(config.omitNamespaces()),
              (namespace, problems) ->
                  new DynamicListerWatcher(
                      http,
                      resource,
                      namespace,
                      labelSelector,
                      metadataOnly,
                      scrubber,
                      budget,
                      options.pageSize(),
                      problems),
              outbox,
              afterChange);
      watches.put(key(resource), watch);
      watch.start();
    }
    watchSnapshot = List.copyOf(watches.values());
  }

  private static String key(ApiResource resource) {
    return resource.group() + "/" + resource.version() + "/" + resource.plural();
  }

  private void announce() {
    AccountInfo next =
        AccountInfo.newBuilder()
            .setName(name())
            .setCluster(identity)
            .addAllNamespaces(config.namespaces())
            .addAllOmitNamespaces(config.omitNamespaces())
            .addAllKinds(watches.values().stream().map(w -> w.resource().toKind()).toList())
            .setPermissions(
                Permissions.newBuilder()
                    .addAllRead(config.permissions().read())
                    .addAllWrite(config.permissions().write()))
            .setOnlySpinnakerManaged(config.onlySpinnakerManaged())
            .addAllUnwatchableKinds(unwatchable)
            .build();
    if (!next.equals(info)) {
      info = next;
      events.announced(name(), next);
    }
  }

  private void pollSync() {
    try {
      boolean all = true;
      for (KindWatch watch : watches.values()) {
        if (watch.isForwarding()) {
          continue;
        }
        if (watch.hasSynced()) {
          watch.resync();
        } else {
          all = false;
        }
      }
      if (all && state == AccountState.SYNCING) {
        state = AccountState.READY;
        log.info("Account '{}': synced {} kinds", name(), watches.size());
        events.health(name(), AccountHealth.ACCOUNT_HEALTH_READY, "");
      } else if (!all && state == AccountState.READY) {
        state = AccountState.SYNCING;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (state != AccountState.STOPPED) {
        log.error("Account '{}': sync check failed", name(), e);
      }
    }
  }

  private void crdChanged() {
    if (rediscoveryPending.compareAndSet(false, true)) {
      try {
        thread.schedule(
            () -> {
              rediscoveryPending.set(false);
              rediscover();
            },
            CRD_SETTLE.toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        rediscoveryPending.set(false);
      }
    }
  }

  private void rediscover() {
    if (state == AccountState.STOPPED || http == null) {
      return;
    }
    try {
      List<ApiResource> selected = allowed(new ResourceDiscovery(http).discover());
      reconcileWatches(selected);
      announce();
      if (state == AccountState.READY
          && watches.values().stream().anyMatch(w -> !w.isForwarding())) {
        state = AccountState.SYNCING;
      }
    } catch (Exception e) {
      log.warn(
          "Account '{}': discovery failed, keeping the current watches: {}", name(), describe(e));
    }
  }

  void cancelTimers() {
    if (syncPoll != null) {
      syncPoll.cancel(false);
    }
    if (rediscovery != null) {
      rediscovery.cancel(false);
    }
  }
}
