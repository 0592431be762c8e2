package io.spinagent.plugin.cache.sql;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The SQL writer's meters, in Clouddriver's Micrometer registry; every tag takes a few fixed values
 * (no account tag). Names and their Prometheus spelling are listed in docs/metrics.md.
 */
final class WriterMetrics {

  private final MeterRegistry registry;
  private final Timer changeLatency;
  private final Timer commitTime;
  private final Timer queueWait;
  private final DistributionSummary groupBatches;
  private final DistributionSummary groupChanges;
  private final Counter splits;
  private final Counter failedBatches;
  private final Counter unchanged;

  WriterMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.changeLatency =
        Timer.builder("spinagent.cache.change.latency")
            .description(
                "From when the agent received a change (its clock) to the commit that stored it")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofMinutes(10))
            .register(registry);
    this.commitTime =
        Timer.builder("spinagent.cache.commit.time")
            .description("A group's transaction, from its first statement to its commit")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry);
    this.queueWait =
        Timer.builder("spinagent.cache.queue.wait")
            .description(
                "From when a batch (or a slice of it) is handed to the writer until its transaction"
                    + " starts")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofMinutes(1))
            .register(registry);
    this.groupBatches =
        DistributionSummary.builder("spinagent.cache.group.batches")
            .description("Batches (accounts) committed together in one transaction")
            .register(registry);
    this.groupChanges =
        DistributionSummary.builder("spinagent.cache.group.changes")
            .description("Changes committed together in one transaction")
            .register(registry);
    this.splits = registry.counter("spinagent.cache.group.splits");
    this.failedBatches = registry.counter("spinagent.cache.batches.failed");
    this.unchanged = registry.counter("spinagent.cache.changes.unchanged");
  }

  /** A group's transaction committed. */
  void committed(int batches, int changes, long nanos, RowTally tally) {
    groupBatches.record(batches);
    groupChanges.record(changes);
    commitTime.record(nanos, TimeUnit.NANOSECONDS);
    for (RowTally.Table table : RowTally.Table.values()) {
      for (RowTally.Operation operation : RowTally.Operation.values()) {
        long rows = tally.get(table, operation);
        if (rows > 0) {
          registry
              .counter("spinagent.cache.rows", "table", table.tag(), "operation", operation.tag())
              .increment((double) rows);
        }
      }
    }
  }

  /** Reports the accounts whose work is committed apart from the others', as busy. */
  void busyAccounts(Supplier<Number> busy) {
    Gauge.builder("spinagent.cache.accounts.busy", busy)
        .description(
            "Accounts that handed the writer about 100 changes or more in the last second, whose"
                + " transactions run apart from the other accounts'")
        .register(registry);
  }

  /** A batch (or slice) waited {@code nanos} in the writer's queue before its group was taken. */
  void queued(long nanos) {
    queueWait.record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  /** A committed change, received by its agent {@code millis} before the commit. */
  void changeLatency(long millis) {
    changeLatency.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
  }

  void refused(Derivation.Reason reason) {
    registry.counter("spinagent.cache.changes.refused", "reason", reason.tag()).increment();
  }

  void unchanged(int objects) {
    unchanged.increment(objects);
  }

  /** A group ran again as it was: {@code missing_table} (created meanwhile) or {@code conflict}. */
  void retried(String reason) {
    registry.counter("spinagent.cache.group.retries", "reason", reason).increment();
  }

  /** A failed group is retried in halves. */
  void split() {
    splits.increment();
  }

  /** Batches (or purges) whose commit failed, to be retried by their pipelines. */
  void failed(int works) {
    failedBatches.increment(works);
  }
}
