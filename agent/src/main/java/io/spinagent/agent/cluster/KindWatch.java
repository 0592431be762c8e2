package io.spinagent.agent.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ResyncPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kind of one account: a {@link Reflector} per scope (one across the cluster, or one per listed
 * namespace), and what they do together:
 *
 * <ul>
 *   <li><b>Complete listings</b> between resync markers: BEGIN, every object of every scope, END.
 *       The first scope to come round puts BEGIN; each scope stops its watch, lists and puts its
 *       objects; the last one puts END. Requests that arrive meanwhile make one more listing.
 *   <li><b>Watch progress</b> (protocol version 2): the lowest resourceVersion up to which every
 *       scope has put everything, put into the outbox after each listing's END and, while watching,
 *       at most once per {@link Account#progressInterval()} (a timer reports progress that would
 *       otherwise wait). Never between a listing's markers.
 *   <li><b>Readiness</b>: after the first complete listing, or once every scope's watch from a
 *       resume point was accepted.
 * </ul>
 *
 * <p>Scopes of one kind hold disjoint objects, and each scope's list and watch run one after the
 * other on its own loop, so an object's changes reach the outbox in order.
 */
final class KindWatch {

  private static final Logger log = LoggerFactory.getLogger(KindWatch.class);

  /** What a kind needs from its account. */
  interface Account {
    String name();

    Outbox outbox();

    ListBudget.Account budget();

    ExecutorService watches();

    ScheduledExecutorService timers();

    /** Whether the session with Clouddriver takes watch progress (protocol version 2). */
    boolean progressEnabled();

    Duration progressInterval();

    /** Whether objects of {@code namespace} are sent ({@code omitNamespaces}). */
    boolean includes(String namespace);

    /** A kind became ready, or stopped being ready. Must not block. */
    void readinessChanged();

    /** An object of a CustomResourceDefinition kind changed. Must not block. */
    void crdChanged();
  }

  /** One complete listing of the kind: its resync id, and the scopes yet to list. */
  static final class Listing {
    private final String resyncId;
    private final int satisfies;
    private final Set<Reflector> pending;

    private Listing(String resyncId, int satisfies, Set<Reflector> pending) {
      this.resyncId = resyncId;
      this.satisfies = satisfies;
      this.pending = pending;
    }
  }

  private final Account account;
  private final ApiResource resource;
  private final Kind kind;
  private final List<Reflector> scopes = new ArrayList<>();
  private final AtomicInteger listingsRequested = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final long progressIntervalNanos;
  private volatile boolean ready;
  private volatile boolean listedOnce;
  private volatile boolean stopped;
  private volatile ScheduledFuture<?> progressFlush;

  @GuardedBy("lock")
  private int listingsDone;

  @GuardedBy("lock")
  private Listing open;

  @GuardedBy("lock")
  private String progressSent;

  @GuardedBy("lock")
  private long progressSentAt;

  KindWatch(Account account, ApiResource resource, List<ScopeListerWatcher> scopes) {
    this.account = account;
    this.resource = resource;
    this.kind = resource.toKind();
    this.progressIntervalNanos = account.progressInterval().toNanos();
    scopes.forEach(scope -> this.scopes.add(new Reflector(this, scope, account)));
  }

  ApiResource resource() {
    return resource;
  }

  Kind kind() {
    return kind;
  }

  /**
   * Starts the scopes' loops: from a complete listing ({@code resumeFrom} null), or watching from
   * {@code resumeFrom} (a resume point Clouddriver committed).
   */
  void start(String resumeFrom) {
    if (resumeFrom == null) {
      listingsRequested.incrementAndGet();
    } else {
      scopes.forEach(scope -> scope.resumeFrom(resumeFrom));
      lock.lock();
      try {
        progressSent = resumeFrom;
        progressSentAt = System.nanoTime();
      } finally {
        lock.unlock();
      }
      log.info(
          "Account '{}': {} resumes watching from resourceVersion {}",
          account.name(),
          resource,
          resumeFrom);
    }
    for (Reflector scope : scopes) {
      if (stopped) {
        return;
      }
      scope.start(account.watches());
    }
  }

  /** Asks for a complete listing (BEGIN, every object, END); returns at once. */
  void requestListing(String reason) {
    listingsRequested.incrementAndGet();
    log.info("Account '{}': listing {} again: {}", account.name(), resource, reason);
    scopes.forEach(Reflector::interruptWatch);
  }

  /**
   * A scope that resumed without listing met 410 Gone: the kind is listed, and is not ready until
   * that listing is complete.
   */
  void expiredBeforeListing(String reason) {
    if (!listedOnce && ready) {
      ready = false;
      account.readinessChanged();
    }
    requestListing(reason);
  }

  /** Stops every scope's loop without waiting; see {@link #stopped()}. */
  void stop() {
    stopped = true;
    ScheduledFuture<?> flush = progressFlush;
    if (flush != null) {
      flush.cancel(false);
    }
    scopes.forEach(Reflector::stop);
  }

  /** Completes when every scope's loop has ended. */
  CompletableFuture<Void> stopped() {
    return CompletableFuture.allOf(
        scopes.stream().map(Reflector::stopped).toArray(CompletableFuture[]::new));
  }

  /** Whether the kind has been listed once, or resumed its watches. */
  boolean isReady() {
    return ready;
  }

  /** Objects known, across scopes. */
  int size() {
    return scopes.stream().mapToInt(Reflector::size).sum();
  }

  /** Scopes running: one list-then-watch loop each. */
  int loops() {
    return (int) scopes.stream().filter(s -> !s.stopped().isDone()).count();
  }

  String lastError() {
    return scopes.stream()
        .map(Reflector::lastError)
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(null);
  }

  // ------------------------------------------------------------------- called by the scope loops

  /**
   * The listing {@code scope} must take part in now, or null. Opens one (and puts its BEGIN) when a
   * listing was requested and none is open.
   */
  Listing listingFor(Reflector scope) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      if (open == null && listingsDone < listingsRequested.get()) {
        String resyncId = UUID.randomUUID().toString();
        account
            .outbox()
            .putResyncMarker(account.name(), kind, ResyncPhase.RESYNC_PHASE_BEGIN, resyncId);
        open = new Listing(resyncId, listingsRequested.get(), new HashSet<>(scopes));
      }
      return open != null && open.pending.contains(scope) ? open : null;
    } finally {
      lock.unlock();
    }
  }

  /** {@code scope} has put every object it listed for {@code listing}. */
  void listed(Reflector scope, Listing listing) throws InterruptedException {
    boolean becameReady = false;
    lock.lockInterruptibly();
    try {
      listing.pending.remove(scope);
      if (!listing.pending.isEmpty() || open != listing) {
        return;
      }
      account
          .outbox()
          .putResyncMarker(account.name(), kind, ResyncPhase.RESYNC_PHASE_END, listing.resyncId);
      open = null;
      listingsDone = listing.satisfies;
      log.debug("Account '{}': complete listing of {} sent", account.name(), resource);
      listedOnce = true;
      if (!ready) {
        ready = true;
        becameReady = true;
      }
      maybeReportProgress(true);
      if (listingsDone < listingsRequested.get()) {
        // Asked for again meanwhile: the scopes that are watching come round for the next one.
        scopes.forEach(Reflector::interruptWatch);
      }
    } finally {
      lock.unlock();
    }
    if (becameReady) {
      account.readinessChanged();
    }
  }

  /** A scope's watch from its resume point was accepted. */
  void established() {
    if (!ready && listingsDoneOrNone() && scopes.stream().allMatch(Reflector::isEstablished)) {
      ready = true;
      account.readinessChanged();
    }
  }

  /** Whether no listing is requested or open: a resumed kind is ready only then. */
  private boolean listingsDoneOrNone() {
    lock.lock();
    try {
      return open == null && listingsDone >= listingsRequested.get();
    } finally {
      lock.unlock();
    }
  }

  /** A scope forwarded a change. */
  void changed() {
    if (resource.isCustomResourceDefinition()) {
      account.crdChanged();
    }
  }

  /** A scope's progress moved on. */
  void progressed() {
    if (!account.progressEnabled()) {
      return;
    }
    lock.lock();
    try {
      maybeReportProgress(false);
    } finally {
      lock.unlock();
    }
  }

  // ------------------------------------------------------------------------------------ progress

  /** Never blocks: progress never waits for space in the outbox. */
  @GuardedBy("lock")
  private void maybeReportProgress(boolean now) {
    if (stopped
        || !account.progressEnabled()
        || open != null
        || listingsDone < listingsRequested.get()) {
      return;
    }
    String resourceVersion = lowestProgress();
    if (resourceVersion == null || resourceVersion.equals(progressSent)) {
      return;
    }
    long at = System.nanoTime();
    if (now || progressSent == null || at - progressSentAt >= progressIntervalNanos) {
      account.outbox().putProgress(account.name(), kind, resourceVersion);
      progressSent = resourceVersion;
      progressSentAt = at;
    } else if (progressFlush == null) {
      schedule(progressSentAt + progressIntervalNanos - at);
    }
  }

  private void schedule(long delayNanos) {
    try {
      progressFlush =
          account.timers().schedule(this::flushProgress, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopping) {
      progressFlush = null;
    }
  }

  /** On the timer thread, which must never wait: if a scope holds the lock, try again later. */
  private void flushProgress() {
    if (stopped) {
      return;
    }
    if (!lock.tryLock()) {
      schedule(TimeUnit.SECONDS.toNanos(1));
      return;
    }
    try {
      progressFlush = null;
      maybeReportProgress(true);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The lowest of the scopes' progress; null while a scope has none. resourceVersions are compared
   * as numbers (as etcd's revisions are); if they are not numbers, only a single scope's counts.
   */
  private String lowestProgress() {
    String lowest = null;
    long lowestValue = Long.MAX_VALUE;
    for (Reflector scope : scopes) {
      String progress = scope.progress();
      if (progress == null) {
        return null;
      }
      if (scopes.size() == 1) {
        return progress;
      }
      long value;
      try {
        value = Long.parseLong(progress);
      } catch (NumberFormatException e) {
        return null;
      }
      if (value < lowestValue) {
        lowestValue = value;
        lowest = progress;
      }
    }
    return lowest;
  }

  @Override
  public String toString() {
    return resource.toString();
  }
}
