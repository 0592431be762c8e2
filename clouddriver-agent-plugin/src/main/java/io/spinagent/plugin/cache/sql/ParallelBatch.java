package io.spinagent.plugin.cache.sql;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A function applied to every item of a list, in order, by helper threads that start at once and by
 * the thread that consumes the results, each taking the next item nobody has taken. The consumer's
 * own waits (database round trips) overlap the helpers' work, and it never waits for a helper that
 * was not scheduled: it then does the work itself.
 */
final class ParallelBatch<T, R> {

  private static final Object PENDING = new Object();

  private final List<T> items;
  private final Function<T, R> function;

  @GuardedBy("this")
  private final Object[] results;

  private final AtomicInteger next = new AtomicInteger();

  private ParallelBatch(List<T> items, Function<T, R> function) {
    this.items = items;
    this.function = function;
    this.results = new Object[items.size()];
    Arrays.fill(results, PENDING);
  }

  /** Starts {@code helpers} tasks on {@code executor} (fewer if the executor refuses some). */
  static <T, R> ParallelBatch<T, R> start(
      List<T> items, Function<T, R> function, Executor executor, int helpers) {
    ParallelBatch<T, R> batch = new ParallelBatch<>(items, function);
    for (int i = 0; i < helpers; i++) {
      try {
        executor.execute(batch::help);
      } catch (RejectedExecutionException e) {
        break; // shutting down: the consumer does the work
      }
    }
    return batch;
  }

  /** Whether item {@code i}'s result is there, so {@link #get} would not compute or wait. */
  synchronized boolean isDone(int i) {
    return results[i] != PENDING;
  }

  /**
   * Item {@code i}'s result: computed here if nobody has taken it (with the items before it that
   * nobody has taken either), else waited for. Rethrows the function's failure on that item.
   */
  @SuppressWarnings("unchecked")
  R get(int i) {
    while (next.get() <= i) {
      if (!computeNext()) {
        break;
      }
    }
    Object result;
    synchronized (this) {
      boolean interrupted = false;
      while ((result = results[i]) == PENDING) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true; // a helper is mid-item: its result is moments away
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (result instanceof Failure f) {
      throw f.exception;
    }
    return (R) result;
  }

  private void help() {
    while (computeNext()) {
      // until every item is taken
    }
  }

  /** Computes the next item nobody has taken; false if there is none. */
  private boolean computeNext() {
    int i = next.getAndIncrement();
    if (i >= items.size()) {
      return false;
    }
    Object result;
    try {
      result = function.apply(items.get(i));
    } catch (RuntimeException e) {
      result = new Failure(e);
    }
    synchronized (this) {
      results[i] = result;
      notifyAll();
    }
    return true;
  }

  private record Failure(RuntimeException exception) {}
}
