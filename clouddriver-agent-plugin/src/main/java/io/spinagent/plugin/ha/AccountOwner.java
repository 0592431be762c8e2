package io.spinagent.plugin.ha;

import java.time.Duration;
import java.time.Instant;

/**
 * The replica holding an account's agent stream, as recorded in {@code spinagent_account_owners}.
 */
public record AccountOwner(
    String account,
    String replicaId,
    String forwardUrl,
    String agentId,
    Instant heartbeatAt,
    Instant acquiredAt) {

  /** Whether the owner renewed its claim within {@code timeout} of {@code now}. */
  public boolean isLive(Instant now, Duration timeout) {
    return !heartbeatAt.plus(timeout).isBefore(now);
  }
}
