package io.spinagent.testkit.kubernetes;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the open watches of one HTTP listener from a few shared threads, so that thousands of
 * watches cost no thread each (a real API server holds tens of thousands).
 *
 * <p>The JDK's HTTP server lets a handler return without closing its exchange and lets any thread
 * write the response later; a watch's handler sends the response head and hands the stream here. A
 * watch with something to send (an event, a due bookmark, its end) is drained by one of the {@code
 * writers}; a timer thread wakes watches whose bookmark or timeout is due.
 *
 * <p>Writes to a client are blocking (the JDK server's sockets are), so a client that stops reading
 * would hold a writer. The timer thread therefore looks for writes that have not finished within
 * {@code stallTimeout}: it adds a writer for each such stalled write, so the other watches keep
 * flowing, and the stalled watch ends as soon as its write returns (as a real API server ends an
 * unresponsive watcher). Its subscription is closed at once, so nothing more queues up for it.
 */
final class WatchPump {

  private static final Logger log = LoggerFactory.getLogger(WatchPump.class);

  /** Writers when no write is stalled; each drains one watch at a time. */
  static final int WRITERS = 2;

  private static final Duration STALL_CHECK = Duration.ofSeconds(1);

  private final Duration stallTimeout;
  private final ScheduledThreadPoolExecutor timers;
  private final ThreadPoolExecutor writers;
  private final Set<WatchStream> open = ConcurrentHashMap.newKeySet();
  private int stalled;

  /**
   * @param threadPrefix names the threads: {@code <prefix>-watch-timer}, {@code
   *     <prefix>-watch-writer-<n>}
   */
  WatchPump(String threadPrefix, Duration stallTimeout) {
    this.stallTimeout = stallTimeout;
    this.timers = new ScheduledThreadPoolExecutor(1, named(threadPrefix + "-watch-timer", false));
    timers.setRemoveOnCancelPolicy(true);
    this.writers =
        new ThreadPoolExecutor(
            WRITERS,
            WRITERS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            named(threadPrefix + "-watch-writer-", true));
    long every = STALL_CHECK.toMillis();
    // checkStalls logs its own failure (which, as before, ends the periodic check).
    ScheduledFuture<?> unused =
        timers.scheduleWithFixedDelay(this::checkStalls, every, every, TimeUnit.MILLISECONDS);
  }

  /** Starts streaming {@code stream}: from now on its events are written from here. */
  void open(WatchStream stream) {
    open.add(stream);
    stream.wake();
  }

  /** Runs a drain on a writer; false once the pump is shut down. */
  boolean execute(Runnable drain) {
    try {
      writers.execute(drain);
      return true;
    } catch (RejectedExecutionException shutDown) {
      return false;
    }
  }

  /** Runs {@code wake} after {@code delayMillis}; null once the pump is shut down. */
  ScheduledFuture<?> schedule(Runnable wake, long delayMillis) {
    try {
      return timers.schedule(wake, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException shutDown) {
      return null;
    }
  }

  /** A watch ended; a stall it was counted for no longer holds a writer. */
  void closed(WatchStream stream, boolean wasStalled) {
    open.remove(stream);
    if (wasStalled) {
      resize(-1);
    }
  }

  /** Watches being streamed now. */
  int openWatches() {
    return open.size();
  }

  /**
   * Stops the threads once the drains already asked for have run (the listener's connections are
   * closed by then, so they end quickly), waiting at most a few seconds.
   */
  void shutdown() {
    timers.shutdownNow();
    writers.shutdown();
    try {
      if (!writers.awaitTermination(5, TimeUnit.SECONDS)) {
        writers.shutdownNow();
      }
    } catch (InterruptedException e) {
      writers.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private void checkStalls() {
    try {
      long limit = System.nanoTime() - stallTimeout.toNanos();
      for (WatchStream stream : open) {
        if (stream.markStalledIfWritingSince(limit)) {
          resize(1);
        }
      }
    } catch (RuntimeException | Error e) {
      log.error("The watch stall check failed and stops", e);
      throw e;
    }
  }

  /** Keeps {@link #WRITERS} writers free of stalled writes. */
  private synchronized void resize(int delta) {
    stalled += delta;
    int size = WRITERS + stalled;
    if (delta > 0) {
      writers.setMaximumPoolSize(size);
      writers.setCorePoolSize(size);
    } else {
      writers.setCorePoolSize(size);
      writers.setMaximumPoolSize(size);
    }
  }

  private static ThreadFactory named(String name, boolean numbered) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, numbered ? name + count.incrementAndGet() : name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
