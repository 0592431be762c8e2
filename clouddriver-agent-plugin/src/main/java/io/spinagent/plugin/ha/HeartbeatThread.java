package io.spinagent.plugin.ha;

import io.spinagent.common.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one named daemon thread of a replica's heartbeat ({@link OwnershipKeeper}, {@link
 * AgentPresence}): the heartbeat every interval from {@link #start}, other tasks in between, in
 * order, until {@link #stop}.
 */
final class HeartbeatThread {

  /** How long {@link #stop} waits for a heartbeat or task under way. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final String name;
  private volatile ScheduledExecutorService executor;

  HeartbeatThread(String name) {
    this.name = name;
  }

  synchronized void start(Runnable heartbeat, Duration firstAfter, Duration interval) {
    ScheduledExecutorService started =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(name));
    // Both heartbeats (OwnershipKeeper, AgentPresence) catch and log what they throw: the future
    // never holds a failure.
    ScheduledFuture<?> unused =
        started.scheduleWithFixedDelay(
            heartbeat, firstAfter.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    executor = started;
  }

  /** Runs {@code task} on the thread after what is queued; nothing when not started or stopped. */
  void execute(Runnable task) {
    ScheduledExecutorService running = executor;
    if (running != null) {
      running.execute(task);
    }
  }

  /**
   * Stops the heartbeat and waits (at most ten seconds) for what is under way.
   *
   * @return false when it was not running: nothing to clean up after
   */
  synchronized boolean stop() throws InterruptedException {
    ScheduledExecutorService running = executor;
    if (running == null) {
      return false;
    }
    executor = null;
    running.shutdown();
    running.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    return true;
  }
}
