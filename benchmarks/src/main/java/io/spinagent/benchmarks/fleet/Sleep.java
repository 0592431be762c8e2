package io.spinagent.benchmarks.fleet;

import java.time.Duration;

/** The benchmark's pauses: an interrupt ends the benchmark. */
final class Sleep {

  private Sleep() {}

  static void of(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
