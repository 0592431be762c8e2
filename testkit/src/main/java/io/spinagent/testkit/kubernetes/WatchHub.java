package io.spinagent.testkit.kubernetes;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The event history and the live watchers. It keeps a bounded window of committed changes; a watch
 * may resume from any resourceVersion inside the window (it gets exactly the events after it), and
 * a watch or continue token from before the window gets 410 Expired, like a real API server whose
 * etcd has compacted. {@link #compact(long)} empties the window on demand so tests can provoke
 * that.
 *
 * <p>Publication happens while the store holds its write lock and subscription while it holds its
 * read lock, so no change can slip between a watcher's backlog and its live feed.
 */
final class WatchHub {

  /**
   * Events a watcher could not take because it was too slow: beyond this it is cut off, as kube
   * does.
   */
  private static final int MAX_QUEUED = 100_000;

  private final int historyLimit;
  private final Deque<WatchEvent> history = new ArrayDeque<>();
  private final Set<Subscription> subscriptions = new LinkedHashSet<>();
  private long compactedThrough;
  private long lastPublished;

  WatchHub(int historyLimit) {
    if (historyLimit < 1) {
      throw new IllegalArgumentException("historyLimit must be positive");
    }
    this.historyLimit = historyLimit;
  }

  synchronized void publish(WatchEvent event) {
    history.addLast(event);
    lastPublished = Math.max(lastPublished, event.resourceVersion());
    while (history.size() > historyLimit) {
      compactedThrough = history.removeFirst().resourceVersion();
    }
    for (Subscription subscription : List.copyOf(subscriptions)) {
      subscription.offer(event);
    }
  }

  /** Forgets every event up to {@code resourceVersion}; watches from before it will get 410. */
  synchronized void compact(long resourceVersion) {
    while (!history.isEmpty() && history.peekFirst().resourceVersion() <= resourceVersion) {
      history.removeFirst();
    }
    compactedThrough = Math.max(compactedThrough, resourceVersion);
  }

  synchronized long compactedThrough() {
    return compactedThrough;
  }

  /** Throws 410 Expired unless every event after {@code resourceVersion} is still in the window. */
  synchronized void requireInWindow(long resourceVersion) {
    if (resourceVersion < compactedThrough) {
      throw ApiError.expired(
          "too old resource version: " + resourceVersion + " (" + compactedThrough + ")");
    }
  }

  /** Events after {@code resourceVersion}, oldest first. */
  synchronized List<WatchEvent> eventsAfter(long resourceVersion) {
    requireInWindow(resourceVersion);
    List<WatchEvent> events = new ArrayList<>();
    for (WatchEvent event : history) {
      if (event.resourceVersion() > resourceVersion) {
        events.add(event);
      }
    }
    return events;
  }

  /**
   * Registers a watcher that first receives {@code initial} (synthetic ADDED events), then every
   * event after {@code fromResourceVersion} still in history, then live events.
   */
  synchronized Subscription subscribe(
      WatchFilter filter, long fromResourceVersion, List<Delivery> initial) {
    List<WatchEvent> backlog = eventsAfter(fromResourceVersion);
    Subscription subscription = new Subscription(filter, fromResourceVersion);
    initial.forEach(subscription.queue::add);
    backlog.forEach(subscription::offer);
    subscriptions.add(subscription);
    return subscription;
  }

  synchronized void closeAll() {
    for (Subscription subscription : List.copyOf(subscriptions)) {
      subscription.close();
    }
  }

  synchronized int activeWatches() {
    return subscriptions.size();
  }

  /** What a watcher is sent: an event type and the object, already filtered for it. */
  record Delivery(String type, StoredObject object, long resourceVersion) {}

  private static final Delivery CLOSED = new Delivery("CLOSED", null, -1);

  /** One watcher's queue. */
  final class Subscription implements AutoCloseable {
    private final WatchFilter filter;
    private final BlockingQueue<Delivery> queue = new LinkedBlockingQueue<>();
    private final long startResourceVersion;
    private volatile boolean closed;
    private volatile Runnable onAvailable = () -> {};
    private long delivered;

    private Subscription(WatchFilter filter, long startResourceVersion) {
      this.filter = filter;
      this.startResourceVersion = startResourceVersion;
      this.delivered = startResourceVersion;
    }

    private void offer(WatchEvent event) {
      // Strictly after the version the watch started from: never replay what the client has seen.
      if (closed || event.resourceVersion() <= startResourceVersion) {
        return;
      }
      Delivery delivery = filter.view(event);
      if (delivery == null) {
        return;
      }
      if (queue.size() >= MAX_QUEUED) {
        close();
        return;
      }
      queue.add(delivery);
      onAvailable.run();
    }

    /**
     * Calls {@code listener} whenever a delivery is queued or the subscription closes. It runs on
     * the publishing thread while the store is locked, so it must only hand off (never write).
     */
    void onAvailable(Runnable listener) {
      this.onAvailable = listener;
    }

    /** The next delivery without waiting; null when none is queued (or the subscription closed). */
    Delivery next() {
      Delivery next = queue.poll();
      // CLOSED is a sentinel instance that close() queues: identity is the test.
      @SuppressWarnings("ReferenceEquality")
      boolean closedMarker = next == CLOSED;
      if (next == null || closedMarker) {
        return null;
      }
      synchronized (WatchHub.this) {
        delivered = Math.max(delivered, next.resourceVersion());
      }
      return next;
    }

    boolean isClosed() {
      return closed && queue.isEmpty();
    }

    /**
     * The resourceVersion a BOOKMARK may carry now: when nothing is queued for this watcher, it has
     * seen every event up to the last one published anywhere, so that version is safe to resume
     * from.
     */
    long bookmarkVersion() {
      synchronized (WatchHub.this) {
        if (queue.isEmpty()) {
          return Math.max(delivered, lastPublished);
        }
        return delivered;
      }
    }

    @Override
    public void close() {
      synchronized (WatchHub.this) {
        subscriptions.remove(this);
      }
      if (!closed) {
        closed = true;
        queue.add(CLOSED);
        onAvailable.run();
      }
    }
  }
}
