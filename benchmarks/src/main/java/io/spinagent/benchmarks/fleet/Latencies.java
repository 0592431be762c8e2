package io.spinagent.benchmarks.fleet;

import java.util.Arrays;

/**
 * Latencies of one phase, in microseconds; any thread may record. Percentiles by the nearest-rank
 * method over every sample (no histogram buckets).
 */
final class Latencies {

  private long[] samples = new long[1024];
  private int count;
  private long expected;

  /** One change of the phase was offered; it should be acknowledged. */
  synchronized void offered() {
    expected++;
  }

  synchronized void record(long micros) {
    if (count == samples.length) {
      samples = Arrays.copyOf(samples, count * 2);
    }
    samples[count++] = micros;
  }

  synchronized int count() {
    return count;
  }

  /** Offered changes not (yet) acknowledged. */
  synchronized long missing() {
    return expected - count;
  }

  /** The {@code p}-th percentile in milliseconds (p in 0..100); NaN without samples. */
  synchronized double percentileMillis(double p) {
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(samples, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))] / 1000.0;
  }

  synchronized double maxMillis() {
    long max = 0;
    for (int i = 0; i < count; i++) {
      max = Math.max(max, samples[i]);
    }
    return count == 0 ? Double.NaN : max / 1000.0;
  }
}
