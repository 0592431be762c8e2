package io.spinagent.sandbox.view;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.sandbox.host.ClouddriverProcess;
import io.spinagent.sandbox.host.StandInRequests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The line under the view that says how long changes took from the cluster to Clouddriver's cache:
 * p50 and p99 of the plugin's {@code spinagent.cache.change.latency} since the sandbox started, as
 * Clouddriver reports them from the timer's histogram buckets (so each is the bucket's upper bound:
 * "at most").
 */
public final class ChangeLatency implements Supplier<String> {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ClouddriverProcess clouddriver;

  public ChangeLatency(ClouddriverProcess clouddriver) {
    this.clouddriver = clouddriver;
  }

  /** The line, or empty before the first change was stored. */
  @Override
  public String get() {
    JsonNode latency;
    try {
      latency = JSON.readTree(StandInRequests.get(clouddriver, "/standin/change-latency"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long count = latency.path("count").asLong();
    return count == 0
        ? ""
        : line(latency.path("p50Ms").asDouble(), latency.path("p99Ms").asDouble(), count);
  }

  static String line(double p50, double p99, long count) {
    return String.format(
        Locale.ROOT,
        "  change → cache row: p50 ≤ %s, p99 ≤ %s over %,d changes%n",
        millis(p50),
        millis(p99),
        count);
  }

  private static String millis(double value) {
    return value < 10
        ? String.format(Locale.ROOT, "%.1f ms", value)
        : String.format(Locale.ROOT, "%,.0f ms", value);
  }
}
