package io.spinagent.benchmarks.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Offers items at a fixed rate, whatever the consumer does (open loop), and records for each item
 * the time from when it was due to be offered to when the commit that carried it completed. Items
 * offered while a commit runs wait and go into the next batch (at most {@code maxBatch}), as the
 * agent's outbox does while Clouddriver has not acknowledged. Timing from the due time rather than
 * the actual offer keeps a late offering thread from hiding delay.
 */
final class OpenLoop {

  /** Commits a batch of items, synchronously. */
  interface BatchSink<T> {
    void commit(List<T> batch) throws Exception;
  }

  private OpenLoop() {}

  static <T> Latencies run(List<T> items, int perSecond, int maxBatch, BatchSink<T> sink)
      throws Exception {
    long period = TimeUnit.SECONDS.toNanos(1) / perSecond;
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    LinkedBlockingQueue<Integer> offered = new LinkedBlockingQueue<>();
    Thread offering = offering(items.size(), start, period, offered::add);
    Latencies latencies = new Latencies(items.size());
    List<Integer> indexes = new ArrayList<>(maxBatch);
    List<T> batch = new ArrayList<>(maxBatch);
    try {
      while (latencies.count() < items.size()) {
        Integer first = offered.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        indexes.add(first);
        offered.drainTo(indexes, maxBatch - 1);
        for (int i : indexes) {
          batch.add(items.get(i));
        }
        sink.commit(batch);
        long done = System.nanoTime();
        for (int i : indexes) {
          latencies.add(done - (start + i * period));
        }
        indexes.clear();
        batch.clear();
      }
    } finally {
      offering.interrupt();
      offering.join();
    }
    return latencies;
  }

  /**
   * The polling variant: {@code apply} applies item i to the state a cycle lists; cycles run back
   * to back, and a cycle commits every item applied before it started.
   */
  static <T> Latencies runCycles(List<T> items, int perSecond, IntConsumer apply, Runnable cycle)
      throws InterruptedException {
    long period = TimeUnit.SECONDS.toNanos(1) / perSecond;
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    java.util.concurrent.atomic.AtomicInteger applied =
        new java.util.concurrent.atomic.AtomicInteger();
    Thread offering =
        offering(
            items.size(),
            start,
            period,
            i -> {
              apply.accept(i);
              applied.set(i + 1);
            });
    Latencies latencies = new Latencies(items.size());
    try {
      while (latencies.count() < items.size()) {
        int upTo = applied.get();
        cycle.run();
        long done = System.nanoTime();
        for (int i = latencies.count(); i < upTo; i++) {
          latencies.add(done - (start + i * period));
        }
      }
    } finally {
      offering.interrupt();
      offering.join();
    }
    return latencies;
  }

  /** A thread calling {@code offer} with 0, 1, 2, … at {@code start + i * period}. */
  static Thread offering(int count, long start, long period, IntConsumer offer) {
    Thread thread =
        new Thread(
            () -> {
              for (int i = 0; i < count && !Thread.currentThread().isInterrupted(); i++) {
                long due = start + i * period;
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                  LockSupport.parkNanos(wait);
                }
                offer.accept(i);
              }
            },
            "benchmark-offering");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** Latencies in nanoseconds. */
  static final class Latencies {
    private final long[] values;
    private int count;

    Latencies(int capacity) {
      values = new long[capacity];
    }

    void add(long nanos) {
      values[count++] = nanos;
    }

    int count() {
      return count;
    }

    /** Adds every latency of {@code other} to these. */
    void addAll(Latencies other) {
      System.arraycopy(other.values, 0, values, count, other.count);
      count += other.count;
    }

    /** The {@code p}-th percentile (0–100) in milliseconds; 0 if there are none. */
    double percentileMillis(double p) {
      if (count == 0) {
        return 0;
      }
      long[] sorted = Arrays.copyOf(values, count);
      Arrays.sort(sorted);
      int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }
  }
}
