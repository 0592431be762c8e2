package io.spinagent.agent.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.agent.config.KubernetesConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets accounts start connecting in groups ({@code kubernetes.cacheGroupSize} accounts, then {@code
 * kubernetes.cacheGroupDelayMs} until the next group), so that an agent starting with hundreds of
 * accounts does not contact every cluster in the same second. Without both settings every account
 * starts at once.
 *
 * <p>At most a group's worth of accounts start within one delay; the others wait in one queue, in
 * the order they were submitted, whether they came from the configuration file or from
 * Clouddriver's commands. Starting only hands the account's first task to its executor, so neither
 * the caller nor the timer thread waits here.
 */
final class StaggeredStart {

  private static final Logger log = LoggerFactory.getLogger(StaggeredStart.class);

  private final int groupSize;
  private final long delayNanos;
  private final ScheduledExecutorService timers;
  private final LongSupplier nanoTime;

  /** Invariant: while accounts wait, a release is scheduled. */
  @GuardedBy("this")
  private final Deque<Runnable> waiting = new ArrayDeque<>();

  @GuardedBy("this")
  private long windowStart;

  @GuardedBy("this")
  private int startedInWindow;

  @GuardedBy("this")
  private boolean windowOpen;

  StaggeredStart(KubernetesConfig.CacheGroups groups, ScheduledExecutorService timers) {
    this(groups, timers, System::nanoTime);
  }

  StaggeredStart(
      KubernetesConfig.CacheGroups groups, ScheduledExecutorService timers, LongSupplier nanoTime) {
    this.groupSize = groups.size();
    this.delayNanos = groups.delay().toNanos();
    this.timers = timers;
    this.nanoTime = nanoTime;
  }

  boolean isStaggered() {
    return groupSize > 0 && delayNanos > 0;
  }

  /**
   * Runs {@code start} now if its group has room (at most {@code cacheGroupSize} starts within
   * {@code cacheGroupDelayMs}), or queues it for the next group.
   */
  void submit(Runnable start) {
    if (!isStaggered()) {
      start.run();
      return;
    }
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (waiting.isEmpty() && (!windowOpen || now - windowStart >= delayNanos)) {
        windowOpen = true;
        windowStart = now;
        startedInWindow = 0;
      }
      if (!waiting.isEmpty() || startedInWindow >= groupSize) {
        if (waiting.isEmpty()) {
          schedule(windowStart + delayNanos - now);
        }
        waiting.addLast(start);
        return;
      }
      startedInWindow++;
    }
    start.run();
  }

  /** Accounts waiting for their group's turn. */
  synchronized int waiting() {
    return waiting.size();
  }

  /** Forgets the accounts still waiting: the agent is stopping. */
  synchronized void clear() {
    waiting.clear();
  }

  /** The next group's turn: starts up to a group of the waiting accounts. */
  private void release() {
    List<Runnable> group = new ArrayList<>(groupSize);
    int left;
    synchronized (this) {
      windowStart = nanoTime.getAsLong();
      while (group.size() < groupSize && !waiting.isEmpty()) {
        group.add(waiting.removeFirst());
      }
      startedInWindow = group.size();
      left = waiting.size();
      if (left > 0) {
        schedule(delayNanos);
      }
    }
    log.info(
        "Starting {} accounts{} (kubernetes.cacheGroupSize {}, cacheGroupDelayMs {})",
        group.size(),
        left > 0 ? "; " + left + " wait for the next group" : "",
        groupSize,
        Duration.ofNanos(delayNanos).toMillis());
    group.forEach(Runnable::run);
  }

  @GuardedBy("this")
  private void schedule(long delay) {
    try {
      ScheduledFuture<?> unused =
          timers.schedule(this::release, Math.max(0, delay), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopping) {
      waiting.clear();
    }
  }
}
