package io.spinagent.benchmarks.sql;

import static io.spinagent.benchmarks.FailureReporting.reported;

import io.spinagent.benchmarks.sql.OpenLoop.Latencies;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.protocol.v1.ObjectChange;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Change-to-commit latency of a sink fed the way a fleet of agents feeds it: the offered changes
 * spread round-robin over the accounts at a fixed total rate (open loop), each account with at most
 * one batch in flight, as its AccountPipeline keeps it, and what reached the account while that
 * batch committed going into its next batch (up to {@code maxBatch} changes), as the agent's outbox
 * sends it. A failed commit is sent again after 100 ms, as the pipeline retries it. Run with many
 * accounts and with one account at the same total rate, the two show what spreading a rate over
 * accounts costs.
 */
final class FleetLatency {

  /** An account and the changes it offers, in order. */
  record Account(String name, List<ObjectChange> changes) {}

  /** The latencies, and how many commits failed (and were sent again). */
  record Result(Latencies latencies, int failedCommits, int batches) {}

  private final ChangeSink sink;
  private final List<Account> accounts;
  private final int maxBatch;
  private final long start;
  private final long period;
  private final Latencies latencies;
  private final CountDownLatch committed;
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "benchmark-fleet-retry");
            thread.setDaemon(true);
            return thread;
          });

  private FleetLatency(ChangeSink sink, List<Account> accounts, int perSecond, int maxBatch) {
    this.sink = sink;
    this.accounts = accounts;
    this.maxBatch = maxBatch;
    this.period = TimeUnit.SECONDS.toNanos(1) / perSecond;
    this.start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    int total = accounts.stream().mapToInt(a -> a.changes().size()).sum();
    this.latencies = new Latencies(total);
    this.committed = new CountDownLatch(total);
  }

  /**
   * Offers every account's changes, change i of the run to account {@code i % accounts}, and waits
   * until all are committed. Every account must offer the same number of changes.
   */
  static Result run(ChangeSink sink, List<Account> accounts, int perSecond, int maxBatch)
      throws InterruptedException {
    FleetLatency run = new FleetLatency(sink, accounts, perSecond, maxBatch);
    List<Outbox> outboxes = new ArrayList<>();
    for (Account account : accounts) {
      outboxes.add(run.new Outbox(account));
    }
    int total = (int) run.committed.getCount();
    Thread offering =
        OpenLoop.offering(
            total, run.start, run.period, i -> outboxes.get(i % outboxes.size()).offer(i));
    try {
      if (!run.committed.await(total / Math.max(1, perSecond) + 300L, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            run.committed.getCount() + " of " + total + " changes were never committed");
      }
    } finally {
      offering.interrupt();
      offering.join();
      run.retries.shutdownNow();
    }
    return new Result(run.latencies, run.failures.get(), run.batches.get());
  }

  /** One account's changes offered and not yet committed, and its batch in flight. */
  private final class Outbox {
    private final Account account;
    private final ArrayDeque<Integer> offered = new ArrayDeque<>();
    private boolean inFlight;

    Outbox(Account account) {
      this.account = account;
    }

    void offer(int i) {
      List<Integer> batch;
      synchronized (this) {
        offered.add(i);
        if (inFlight) {
          return;
        }
        inFlight = true;
        batch = next();
      }
      send(batch);
    }

    /** The next batch: what was offered meanwhile, up to {@code maxBatch} changes. */
    private List<Integer> next() {
      List<Integer> batch = new ArrayList<>();
      while (!offered.isEmpty() && batch.size() < maxBatch) {
        batch.add(offered.poll());
      }
      return batch;
    }

    private void send(List<Integer> indexes) {
      List<SinkEntry> entries = new ArrayList<>(indexes.size());
      for (int i : indexes) {
        entries.add(new SinkEntry.Change(account.changes().get(i / accounts.size())));
      }
      batches.incrementAndGet();
      sink.commit(new SinkBatch(account.name(), entries))
          .whenComplete(
              (outcome, error) -> {
                if (error != null) {
                  failures.incrementAndGet();
                  // A failed resend is printed: its changes would otherwise never commit,
                  // unnoticed.
                  ScheduledFuture<?> unused =
                      retries.schedule(
                          reported("Resending a batch", () -> send(indexes)),
                          100,
                          TimeUnit.MILLISECONDS);
                  return;
                }
                long done = System.nanoTime();
                synchronized (latencies) {
                  for (int i : indexes) {
                    latencies.add(done - (start + i * period));
                  }
                }
                indexes.forEach(i -> committed.countDown());
                List<Integer> batch;
                synchronized (this) {
                  if (offered.isEmpty()) {
                    inFlight = false;
                    return;
                  }
                  batch = next();
                }
                send(batch);
              });
    }
  }
}
