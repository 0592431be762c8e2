package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.AccountInfo;
import java.util.Optional;

/**
 * Told when an agent completed its handshake on this replica (after its Welcome was sent), and
 * asked about each account it claims, on the session's thread: an implementation must not wait for
 * the agent.
 */
@FunctionalInterface
public interface AgentWelcomeListener {

  AgentWelcomeListener NONE = agent -> {};

  void welcomed(AgentLink agent);

  /**
   * Why {@code account}, claimed by {@code agent}, must be refused before the registry decides it
   * (e.g. a dynamic account that no stored account owns any more); empty to let the registry
   * decide.
   */
  default Optional<String> refusal(AgentLink agent, AccountInfo account) {
    return Optional.empty();
  }
}
