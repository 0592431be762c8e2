package io.spinagent.agent.cluster;

import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ResumePoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kinds one account watches: a {@link KindWatch} per kind, started as Clouddriver's decision
 * says (from its resume point, or listing), kept in line with discovery, and stopped. Used by the
 * account's own tasks only, one at a time; {@link #snapshot} may be read from any thread.
 */
final class AccountWatches {

  private static final Logger log = LoggerFactory.getLogger(AccountWatches.class);

  /** How long starting a kind again waits for its previous loops to end. */
  private static final Duration RESTART_WAIT = Duration.ofSeconds(2);

  /** Scrubs objects of every kind but Secrets (which get a scrubber of their own). */
  private static final ObjectScrubber OBJECTS = new ObjectScrubber(false);

  private final KubernetesAccountConfig config;
  private final ClusterOptions options;
  private final KindWatch.Account account;
  private final Map<String, KindWatch> watches = new LinkedHashMap<>();
  private final Map<String, CompletableFuture<Void>> stopping = new HashMap<>();
  private volatile List<KindWatch> snapshot = List.of();
  private volatile boolean closed;

  AccountWatches(
      KubernetesAccountConfig config, ClusterOptions options, KindWatch.Account account) {
    this.config = config;
    this.options = options;
    this.account = account;
  }

  /** The kinds watched now; safe to read from any thread. */
  List<KindWatch> snapshot() {
    return snapshot;
  }

  boolean isEmpty() {
    return watches.isEmpty();
  }

  /** Whether every one of {@code selected} is watched and ready. */
  boolean allReady(List<ApiResource> selected) {
    return watches.size() == selected.size()
        && watches.values().stream().allMatch(KindWatch::isReady);
  }

  /**
   * Watches every one of {@code selected} for a caching {@code decision}: a kind watched already
   * keeps its watch (and is listed again if the decision requires a complete listing); the others
   * start from their resume point when it may be used, and otherwise list.
   */
  void apply(AccountDecision decision, List<ApiResource> selected, KubeHttp http)
      throws InterruptedException {
    Map<String, ResumePoint> resumePoints = new HashMap<>();
    decision.getResumePointsList().forEach(p -> resumePoints.put(groupKind(p.getKind()), p));
    int resumed = 0;
    for (ApiResource resource : selected) {
      KindWatch running = watches.get(key(resource));
      if (running != null) {
        if (decision.getResyncRequired()) {
          running.requestListing("Clouddriver requires a complete listing");
        } else if (!resumePoints.containsKey(groupKind(resource.toKind()))) {
          // The replica deciding holds no resume point for the kind (the account moved there from
          // a replica that recorded none, or it keeps no database): only a listing tells it that
          // the kind is in sync.
          running.requestListing("Clouddriver holds no resume point for it");
        }
        continue;
      }
      String resumeFrom =
          decision.getResyncRequired()
              ? null
              : usable(resource, resumePoints.get(groupKind(resource.toKind())));
      if (resumeFrom != null) {
        resumed++;
      }
      start(resource, resumeFrom, http);
    }
    if (resumed > 0) {
      log.info(
          "Account '{}': {} of {} kinds resume from Clouddriver's resume points",
          account.name(),
          resumed,
          selected.size());
    }
  }

  /**
   * Follows a new discovery: kinds no longer selected stop, new ones start with a listing (a resume
   * point may predate their absence).
   */
  void reconcile(List<ApiResource> selected, KubeHttp http) throws InterruptedException {
    Map<String, ApiResource> wanted = new LinkedHashMap<>();
    selected.forEach(r -> wanted.put(key(r), r));
    for (var it = watches.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!wanted.containsKey(entry.getKey())) {
        log.info(
            "Account '{}': {} is no longer served or selected, stopping its watch",
            account.name(),
            entry.getValue().resource());
        stop(entry.getKey(), entry.getValue());
        it.remove();
      }
    }
    for (ApiResource resource : wanted.values()) {
      if (!watches.containsKey(key(resource))) {
        start(resource, null, http);
      }
    }
    publish();
  }

  /** Asks the watched kinds among {@code kinds} (all when empty) for a complete listing. */
  void requestListings(List<Kind> kinds, String reason) {
    for (KindWatch watch : watches.values()) {
      if (kinds.isEmpty() || kinds.stream().anyMatch(k -> sameKind(k, watch.kind()))) {
        watch.requestListing(reason);
      }
    }
  }

  /** Stops every kind, without waiting for their loops. */
  void stopAll() {
    for (var entry : watches.entrySet()) {
      stop(entry.getKey(), entry.getValue());
    }
    watches.clear();
    publish();
  }

  /**
   * Stops every kind for good, from any thread (the account is stopping).
   *
   * @return completes once every loop has ended
   */
  CompletableFuture<Void> close() {
    closed = true;
    List<CompletableFuture<Void>> loops = new ArrayList<>();
    for (KindWatch watch : snapshot) {
      watch.stop();
      loops.add(watch.stopped());
    }
    return CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new));
  }

  private void stop(String key, KindWatch watch) {
    watch.stop();
    stopping.put(key, watch.stopped());
  }

  /** The resume point's resourceVersion if it may be watched from; null to list. */
  private String usable(ApiResource resource, ResumePoint point) {
    if (point == null || point.getResourceVersion().isEmpty()) {
      return null;
    }
    long age = System.currentTimeMillis() - point.getCommittedAtMillis();
    if (point.getCommittedAtMillis() <= 0 || age >= config.maxResumableResourceAge().toMillis()) {
      log.info(
          "Account '{}': the resume point of {} is {} ms old (maxResumableResourceAgeMs {}),"
              + " listing it",
          account.name(),
          resource,
          age,
          config.maxResumableResourceAge().toMillis());
      return null;
    }
    return point.getResourceVersion();
  }

  private void start(ApiResource resource, String resumeFrom, KubeHttp http)
      throws InterruptedException {
    String key = key(resource);
    CompletableFuture<Void> previous = stopping.remove(key);
    if (previous != null) {
      // Its last puts must not land after the new loops' first ones.
      try {
        previous.get(RESTART_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        log.debug(
            "Account '{}': {} is still stopping; starting it anyway", account.name(), resource);
      }
    }
    List<String> scopes =
        resource.namespaced() && !config.namespaces().isEmpty()
            ? config.namespaces()
            : Collections.singletonList(null);
    boolean scrub = resource.isSecret() && options.scrubSecrets();
    ObjectScrubber scrubber =
        scrub ? new ObjectScrubber(true, resource.apiVersion(), resource.kind()) : OBJECTS;
    String labelSelector =
        config.onlySpinnakerManaged() ? "app.kubernetes.io/managed-by=spinnaker" : null;
    List<ScopeListerWatcher> requests = new ArrayList<>();
    for (String namespace : scopes) {
      requests.add(
          new ScopeListerWatcher(
              http, resource, namespace, labelSelector, scrub, scrubber, options.pageSize()));
    }
    KindWatch watch = new KindWatch(account, resource, requests);
    watches.put(key, watch);
    publish();
    if (closed) {
      // close() may have read the snapshot before this watch was in it.
      watch.stop();
      return;
    }
    watch.start(resumeFrom);
  }

  private void publish() {
    snapshot = List.copyOf(watches.values());
  }

  private static String key(ApiResource resource) {
    return resource.group() + "/" + resource.version() + "/" + resource.plural();
  }

  private static String groupKind(Kind kind) {
    return kind.getGroup() + "/" + kind.getKind();
  }

  private static boolean sameKind(Kind a, Kind b) {
    return a.getGroup().equals(b.getGroup()) && a.getKind().equals(b.getKind());
  }
}
