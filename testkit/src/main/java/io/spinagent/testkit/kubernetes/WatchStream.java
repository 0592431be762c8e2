package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes one watch to its HTTP response: a chunked stream of newline-delimited JSON WatchEvents
 * until the client's {@code timeoutSeconds} (or the server's default) elapses, the client goes
 * away, or the server stops. Sends BOOKMARK events periodically when the client allowed them, and
 * the "initial-events-end" bookmark of a {@code sendInitialEvents} watch.
 *
 * <p>The handler thread only answers the response head; a {@link WatchPump} writer then drains the
 * subscription whenever it is woken (an event was queued, a bookmark or the timeout is due), one
 * drain at a time, and flushes once per drain.
 */
final class WatchStream {

  private final ApiExchange exchange;
  private final ResourceType type;
  private final ResponseShape shape;
  private final String includeObject;
  private final ServerSideTables tables;
  private final long timeoutMillis;
  private final boolean bookmarks;
  private final long bookmarkIntervalMillis;
  private final boolean sendInitialEventsEnd;

  /** Wake-ups not yet drained; the waker that raises it from zero schedules the drain. */
  private final AtomicInteger wakeups = new AtomicInteger();

  /** When the write in progress started (System.nanoTime), 0 when not writing. */
  private volatile long writingSince;

  private volatile boolean stalled;

  // Touched by the handler thread before the pump starts, then only by the draining writer.
  private WatchPump pump;
  private WatchHub.Subscription subscription;
  private OutputStream out;
  private long initialResourceVersion;
  private int initialLeft;
  private long deadline;
  private long nextBookmark;
  private ScheduledFuture<?> timer;
  private long timerAt;
  private boolean ended;

  WatchStream(
      ApiExchange exchange,
      ResourceType type,
      ResponseShape shape,
      String includeObject,
      ServerSideTables tables,
      long timeoutMillis,
      boolean bookmarks,
      long bookmarkIntervalMillis,
      boolean sendInitialEventsEnd) {
    this.exchange = exchange;
    this.type = type;
    this.shape = shape;
    this.includeObject = includeObject;
    this.tables = tables;
    this.timeoutMillis = timeoutMillis;
    this.bookmarks = bookmarks;
    this.bookmarkIntervalMillis = bookmarkIntervalMillis;
    this.sendInitialEventsEnd = sendInitialEventsEnd;
  }

  /**
   * Answers the response head on the handler's thread, then hands the stream to {@code pump}. A
   * watch from a compacted resourceVersion gets its one ERROR event here and ends with the handler.
   */
  void start(ResourceStore.WatchStart start, WatchPump pump) throws IOException {
    out = exchange.startStream("application/json");
    if (start.expired()) {
      // A real API server answers 200 and sends the 410 as the stream's only event.
      exchange.markWatchExpired();
      write("ERROR", ApiError.expired(start.expiredMessage()).toStatus());
      out.flush();
      return;
    }
    this.pump = pump;
    subscription = start.subscription();
    initialResourceVersion = start.initialResourceVersion();
    initialLeft = start.initialEvents();
    long now = System.currentTimeMillis();
    deadline = now + timeoutMillis;
    nextBookmark = now + bookmarkIntervalMillis;
    exchange.detach();
    subscription.onAvailable(this::wake);
    pump.open(this);
  }

  /** Something may be due: drains on a writer unless a drain is already pending. */
  void wake() {
    if (wakeups.getAndIncrement() == 0 && !pump.execute(this::drain)) {
      // The pump was shut down with the server: the connection is gone.
      subscription.close();
    }
  }

  /**
   * Called by the pump's timer: whether this stream has been in one write since before {@code
   * limitNanos} and is now counted as stalled (once per stream).
   */
  boolean markStalledIfWritingSince(long limitNanos) {
    long since = writingSince;
    if (since == 0 || since - limitNanos > 0 || stalled) {
      return false;
    }
    stalled = true;
    // Nothing more queues up for a client that does not read; the stream ends when the write
    // returns.
    subscription.close();
    return true;
  }

  private void drain() {
    int seen = wakeups.get();
    while (true) {
      drainOnce();
      seen = wakeups.addAndGet(-seen);
      if (seen == 0) {
        return;
      }
    }
  }

  private void drainOnce() {
    if (ended) {
      return;
    }
    writingSince = System.nanoTime();
    try {
      boolean wrote = false;
      if (sendInitialEventsEnd && initialLeft == 0 && initialResourceVersion >= 0) {
        // A sendInitialEvents watch of an empty collection: the end of its (empty) initial state.
        write("BOOKMARK", shape.bookmark(type, initialResourceVersion, true));
        initialResourceVersion = -1;
        wrote = true;
      }
      WatchHub.Delivery delivery;
      while (!stalled && (delivery = subscription.next()) != null) {
        write(delivery.type(), shape.single(delivery.object(), type, includeObject, tables));
        if (initialLeft > 0 && --initialLeft == 0 && sendInitialEventsEnd) {
          write("BOOKMARK", shape.bookmark(type, initialResourceVersion, true));
          initialResourceVersion = -1;
        }
        wrote = true;
      }
      long now = System.currentTimeMillis();
      if (bookmarks && initialLeft == 0 && now >= nextBookmark && !stalled) {
        write("BOOKMARK", shape.bookmark(type, subscription.bookmarkVersion(), false));
        nextBookmark = now + bookmarkIntervalMillis;
        wrote = true;
      }
      if (wrote) {
        out.flush();
      }
      if (stalled || subscription.isClosed() || now >= deadline) {
        end();
        return;
      }
      scheduleTimer(now);
    } catch (IOException clientWentAway) {
      // Nothing to tell anyone: the client closed the stream, which is how watches usually end.
      end();
    } finally {
      writingSince = 0;
    }
  }

  /** Keeps one timer, for the earlier of the deadline and the next bookmark. */
  private void scheduleTimer(long now) {
    long due = bookmarks ? Math.min(deadline, nextBookmark) : deadline;
    if (due == timerAt && timer != null) {
      return;
    }
    if (timer != null) {
      timer.cancel(false);
    }
    timerAt = due;
    timer = pump.schedule(this::wake, due - now);
  }

  private void end() {
    ended = true;
    if (timer != null) {
      timer.cancel(false);
    }
    subscription.close();
    try {
      exchange.complete();
    } finally {
      pump.closed(this, stalled);
    }
  }

  private void write(String type, JsonNode object) throws IOException {
    ObjectNode event = Json.object();
    event.put("type", type);
    event.set("object", object);
    out.write((Json.write(event) + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
