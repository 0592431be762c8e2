package io.spinagent.plugin.time

import java.time.Clock
import java.time.Instant
import java.time.ZoneId
import java.time.ZoneOffset
import java.util.concurrent.AbstractExecutorService
import java.util.concurrent.Callable
import java.util.concurrent.Delayed
import java.util.concurrent.Executor
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit
import java.util.function.LongSupplier

/**
 * Time that a spec steps, and the executor and scheduler that run on it (grpc-java's FakeClock is
 * the model). Nothing runs by itself: a task handed to {@link #executor} is due now, one handed to
 * {@link #scheduler} after its delay, and each runs on the spec's own thread when the spec calls
 * {@link #runDueTasks} or {@link #forwardTime}, in the order they fall due. A spec thus arranges
 * "while a commit runs" or "just as a timer fires" exactly, without sleeping or polling.
 */
class FakeClock {

  private long nanos
  private long sequence
  private final PriorityQueue<Task> tasks =
    new PriorityQueue<>(Comparator.<Task> comparingLong { it.due }.thenComparingLong { it.order })

  /** Runs what it is given when the spec runs the due tasks. */
  final Executor executor = { Runnable command -> schedule(command, 0) } as Executor

  /** Schedules on this clock; the periodic and shut-down methods are not needed here. */
  final ScheduledExecutorService scheduler = new FakeScheduler()

  /** {@link System#nanoTime} on this clock. */
  final LongSupplier nanoTime = { nanos } as LongSupplier

  /** A {@link Clock} reading this clock's time, from the epoch. */
  final Clock clock = new Clock() {
    ZoneId getZone() { ZoneOffset.UTC }

    Clock withZone(ZoneId zone) { this }

    Instant instant() { Instant.EPOCH.plusNanos(nanos) }
  }

  /** Runs the tasks due now, those they hand on included; returns how many ran. */
  synchronized int runDueTasks() {
    int ran = 0
    while (!tasks.isEmpty() && tasks.peek().due <= nanos) {
      if (++ran > 100_000) {
        throw new IllegalStateException('tasks keep handing on tasks due now')
      }
      tasks.poll().run()
    }
    ran
  }

  /** Moves time on by {@code amount}, running each task as its time comes; returns how many ran. */
  synchronized int forwardTime(long amount, TimeUnit unit) {
    long until = nanos + unit.toNanos(amount)
    int ran = 0
    while (!tasks.isEmpty() && tasks.peek().due <= until) {
      nanos = Math.max(nanos, tasks.peek().due)
      ran += runDueTasks()
    }
    nanos = until
    ran + runDueTasks()
  }

  /** Tasks waiting to run, due or not. */
  synchronized int pendingTasks() {
    tasks.size()
  }

  private synchronized Task schedule(Runnable command, long delayNanos) {
    def task = new Task(command, nanos + Math.max(0, delayNanos), sequence++)
    tasks.add(task)
    task
  }

  private synchronized boolean cancel(Task task) {
    tasks.remove(task)
  }

  /** A task on the clock: cancelled only while it waits, as a real scheduler's. */
  private final class Task implements ScheduledFuture<Object> {
    final Runnable command
    final long due
    final long order
    boolean started
    boolean cancelled

    Task(Runnable command, long due, long order) {
      this.command = command
      this.due = due
      this.order = order
    }

    void run() {
      started = true
      command.run()
    }

    long getDelay(TimeUnit unit) { unit.convert(due - nanos, TimeUnit.NANOSECONDS) }

    int compareTo(Delayed other) { Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS)) }

    boolean cancel(boolean mayInterruptIfRunning) {
      if (started || cancelled) {
        return false
      }
      cancelled = FakeClock.this.cancel(this)
    }

    boolean isCancelled() { cancelled }

    boolean isDone() { started || cancelled }

    Object get() { throw new UnsupportedOperationException('a fake clock\'s task has no result to wait for') }

    Object get(long timeout, TimeUnit unit) { get() }
  }

  private final class FakeScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      FakeClock.this.schedule(command, unit.toNanos(delay))
    }

    def <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException('not needed by the specs')
    }

    ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
      throw new UnsupportedOperationException('not needed by the specs')
    }

    ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
      throw new UnsupportedOperationException('not needed by the specs')
    }

    void execute(Runnable command) { FakeClock.this.schedule(command, 0) }

    void shutdown() {}

    List<Runnable> shutdownNow() { [] }

    boolean isShutdown() { false }

    boolean isTerminated() { false }

    boolean awaitTermination(long timeout, TimeUnit unit) { true }
  }
}
