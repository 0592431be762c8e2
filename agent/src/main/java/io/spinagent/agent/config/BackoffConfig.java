package io.spinagent.agent.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Delays between attempts to reconnect to Clouddriver ({@code clouddriver.backoff.*}): the n-th
 * retry waits {@code min(maxDelay, baseDelay * multiplier^n)}, randomised by plus or minus {@code
 * jitter} of itself so that agents restarted together do not reconnect together.
 *
 * @param baseDelay delay before the first retry, positive
 * @param multiplier growth per retry, at least 1
 * @param jitter fraction between 0 and 1
 * @param maxDelay cap on the delay, at least {@code baseDelay}
 */
public record BackoffConfig(
    Duration baseDelay, double multiplier, double jitter, Duration maxDelay) {

  /** The values gRPC's connection backoff specification uses, and Armory Scale Agent with it. */
  public static final Duration DEFAULT_BASE_DELAY = Duration.ofSeconds(1);

  public static final double DEFAULT_MULTIPLIER = 1.6;
  public static final double DEFAULT_JITTER = 0.2;
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(2);

  public BackoffConfig {
    Objects.requireNonNull(baseDelay, "baseDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
  }
}
