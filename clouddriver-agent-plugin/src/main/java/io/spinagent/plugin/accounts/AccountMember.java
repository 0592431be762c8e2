package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.AccountDecision;

/** An agent connection that serves accounts: what the registry needs to know of, and tell, it. */
public interface AccountMember {

  String agentId();

  /** Unique per connection, so a reconnect of the same agent is a different member. */
  String sessionId();

  /**
   * Who the connection authenticated as: {@code x509:<certificate subject>}, {@code token:<name>},
   * {@code token:sha256:<hash prefix>} for an unnamed token, or {@code anonymous}. Accounts are
   * bound to it.
   */
  String principal();

  /** A decision changed after the handshake, e.g. this standby now streams the account. */
  void decisionChanged(AccountDecision decision);
}
