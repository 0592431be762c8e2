package io.spinagent.common;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * The delays between attempts at something that keeps failing: the n-th consecutive failure waits
 * {@code min(max, first * multiplier^(n-1))}, spread by plus or minus {@code jitter} of itself when
 * jitter is set (so agents that lost the same replica do not all come back at once).
 *
 * <p>Immutable: whoever retries counts its own consecutive failures and starts over from 1 after a
 * success.
 */
public final class Backoff {

  /** Past this many failures every delay is {@code max} anyway; keeps the power finite. */
  private static final int MAX_EXPONENT = 64;

  private final Duration first;
  private final double multiplier;
  private final Duration max;
  private final double jitter;
  private final DoubleSupplier random;

  private Backoff(
      Duration first, double multiplier, Duration max, double jitter, DoubleSupplier random) {
    this.first = first;
    this.multiplier = multiplier;
    this.max = max;
    this.jitter = jitter;
    this.random = random;
  }

  /**
   * An exponential backoff: each delay {@code multiplier} times the one before, up to {@code max}.
   *
   * @param first the delay after the first failure
   * @param multiplier how much longer each further delay is, at least 1
   * @param max the longest delay, before jitter
   */
  public static Backoff exponential(Duration first, double multiplier, Duration max) {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(max, "max");
    if (first.isNegative() || max.isNegative()) {
      throw new IllegalArgumentException("backoff delays must not be negative");
    }
    if (!(multiplier >= 1)) {
      throw new IllegalArgumentException("backoff multiplier must be at least 1: " + multiplier);
    }
    return new Backoff(first, multiplier, max, 0, () -> 0.5);
  }

  /** {@code first}, twice that, four times, … up to {@code max}. */
  public static Backoff doubling(Duration first, Duration max) {
    return exponential(first, 2, max);
  }

  /**
   * This backoff with each delay spread uniformly over plus or minus {@code jitter} of itself.
   *
   * @param jitter between 0 and 1
   * @param random uniform in [0, 1)
   */
  public Backoff withJitter(double jitter, DoubleSupplier random) {
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("backoff jitter must be between 0 and 1: " + jitter);
    }
    return new Backoff(first, multiplier, max, jitter, Objects.requireNonNull(random, "random"));
  }

  /**
   * The delay before the next attempt.
   *
   * @param failures consecutive failures so far, counting the one just seen (1 or more)
   */
  public Duration delay(int failures) {
    if (failures < 1) {
      throw new IllegalArgumentException("failures must be at least 1: " + failures);
    }
    double nanos =
        (double) first.toNanos() * Math.pow(multiplier, Math.min(failures - 1, MAX_EXPONENT));
    nanos = Math.min(nanos, (double) max.toNanos());
    if (jitter > 0) {
      nanos *= 1 + jitter * (2 * random.getAsDouble() - 1);
    }
    return Duration.ofNanos(Math.max(0, (long) nanos));
  }
}
