package io.spinagent.agent.stream;

import io.spinagent.agent.config.BackoffConfig;
import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Delays between attempts to reopen the stream ({@code clouddriver.backoff}): the n-th consecutive
 * failure waits {@code min(maxDelay, baseDelay * multiplier^n)} plus or minus {@code jitter} of
 * itself. {@link #reset()} after a session that worked, so a single blip reconnects quickly.
 */
final class ReconnectBackoff {

  private final BackoffConfig config;
  private final DoubleSupplier random;
  private int failures;

  /**
   * @param random uniform in [0, 1)
   */
  ReconnectBackoff(BackoffConfig config, DoubleSupplier random) {
    this.config = config;
    this.random = random;
  }

  /** The delay before the next attempt; each call counts one more failure. */
  synchronized Duration nextDelay() {
    double delay = config.baseDelay().toNanos() * Math.pow(config.multiplier(), failures);
    delay = Math.min(delay, config.maxDelay().toNanos());
    failures = Math.min(failures + 1, 64);
    double jittered = delay * (1 + config.jitter() * (2 * random.getAsDouble() - 1));
    return Duration.ofNanos(Math.max(0, (long) jittered));
  }

  synchronized void reset() {
    failures = 0;
  }

  synchronized int failures() {
    return failures;
  }
}
