package io.spinagent.agent.cluster;

import io.spinagent.agent.stream.Outbox;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ResyncPhase;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
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
 *   <li><b>Readiness</b>: after the first complete listing.
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

    /** Whether objects of {@code namespace} are sent ({@code omitNamespaces}). */
    boolean includes(String namespace);

    /** A kind became ready. Must not block. */
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
  private volatile boolean ready;
  private volatile boolean stopped;

  // Guarded by lock.
  private int listingsDone;
  private Listing open;

  KindWatch(Account account, ApiResource resource, List<ScopeListerWatcher> scopes) {
    this.account = account;
    this.resource = resource;
    this.kind = resource.toKind();
    scopes.forEach(scope -> this.scopes.add(new Reflector(this, scope, account)));
  }

  ApiResource resource() {
    return resource;
  }

  Kind kind() {
    return kind;
  }

  /** Starts the scopes' loops, with a complete listing. */
  void start() {
    listingsRequested.incrementAndGet();
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

  /** Stops every scope's loop without waiting; see {@link #stopped()}. */
  void stop() {
    stopped = true;
    scopes.forEach(Reflector::stop);
  }

  /** Completes when every scope's loop has ended. */
  CompletableFuture<Void> stopped() {
    return CompletableFuture.allOf(
        scopes.stream().map(Reflector::stopped).toArray(CompletableFuture[]::new));
  }

  /** Whether the kind has been listed once. */
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
      if (!ready) {
        ready = true;
        becameReady = true;
      }
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

  /** A scope forwarded a change. */
  void changed() {
    if (resource.isCustomResourceDefinition()) {
      account.crdChanged();
    }
  }

  @Override
  public String toString() {
    return resource.toString();
  }
}
