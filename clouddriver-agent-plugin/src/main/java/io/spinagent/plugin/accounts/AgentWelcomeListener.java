package io.spinagent.plugin.accounts;

/**
 * Told when an agent completed its handshake on this replica (after its Welcome was sent), on the
 * session's thread: an implementation must not wait for the agent.
 */
@FunctionalInterface
public interface AgentWelcomeListener {

  AgentWelcomeListener NONE = agent -> {};

  void welcomed(AgentLink agent);
}
