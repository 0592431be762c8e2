package io.spinagent.plugin.accounts;

import java.util.Collection;

/**
 * The port through which accounts send commands to agents: the agents connected to this replica.
 * The session layer, above accounts, implements it, so accounts know nothing of gRPC.
 */
public interface ConnectedAgents {

  /** The agents connected to this replica now. */
  Collection<? extends AgentLink> all();
}
