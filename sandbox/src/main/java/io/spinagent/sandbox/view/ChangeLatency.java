package io.spinagent.sandbox.view;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The line under the view that says how long changes took from the cluster to Clouddriver's cache:
 * p50 and p99 of the plugin's {@code spinagent.cache.change.latency} since the sandbox started,
 * read from its histogram buckets (so each is the bucket's upper bound: "at most").
 */
public final class ChangeLatency implements Supplier<String> {

  static final String METER = "spinagent.cache.change.latency";

  private final List<MeterRegistry> registries;

  /**
   * @param registries where the plugin's meters may be: the Clouddriver host's registries
   */
  public ChangeLatency(List<MeterRegistry> registries) {
    this.registries = List.copyOf(registries);
  }

  /** The line, or empty before the first change was stored. */
  @Override
  public String get() {
    for (MeterRegistry registry : registries) {
      Timer timer = registry.find(METER).timer();
      if (timer != null && timer.count() > 0) {
        return line(timer.takeSnapshot());
      }
    }
    return "";
  }

  static String line(HistogramSnapshot snapshot) {
    return String.format(
        Locale.ROOT,
        "  change → cache row: p50 ≤ %s, p99 ≤ %s over %,d changes%n",
        millis(percentile(snapshot, 0.50)),
        millis(percentile(snapshot, 0.99)),
        snapshot.count());
  }

  /** The upper bound of the first bucket holding the {@code q} quantile; the maximum past all. */
  static double percentile(HistogramSnapshot snapshot, double q) {
    double wanted = q * snapshot.count();
    for (CountAtBucket bucket : snapshot.histogramCounts()) {
      if (bucket.count() >= wanted) {
        return Math.min(bucket.bucket(TimeUnit.MILLISECONDS), snapshot.max(TimeUnit.MILLISECONDS));
      }
    }
    return snapshot.max(TimeUnit.MILLISECONDS);
  }

  private static String millis(double value) {
    return value < 10
        ? String.format(Locale.ROOT, "%.1f ms", value)
        : String.format(Locale.ROOT, "%,.0f ms", value);
  }
}
