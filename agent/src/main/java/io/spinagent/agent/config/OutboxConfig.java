package io.spinagent.agent.config;

/**
 * The outbox holds changes sent to Clouddriver but not yet acknowledged, so that they can be resent
 * after a reconnect ({@code clouddriver.outbox.*}).
 *
 * @param maxBytes upper bound on the memory it may use, so that a slow Clouddriver costs the agent
 *     a known amount of heap rather than an amount proportional to cluster size
 */
public record OutboxConfig(long maxBytes) {

  /** Room for many full batches while staying a small share of a typical 512Mi–1Gi agent. */
  public static final long DEFAULT_MAX_BYTES = 64L << 20;

  /** Smaller would not hold even a few batches of large objects. */
  public static final long MIN_MAX_BYTES = 1L << 20;
}
