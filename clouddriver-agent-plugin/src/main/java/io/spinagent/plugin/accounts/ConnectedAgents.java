package io.spinagent.plugin.accounts;

import java.util.Collection;
import java.util.List;

/**
 * The port through which accounts send commands to agents: the agents connected to this replica.
 * The session layer, above accounts, implements it, so accounts know nothing of gRPC.
 */
public interface ConnectedAgents {

  /** The agents connected to this replica now. */
  Collection<? extends AgentLink> all();

  /** The connected agents a dynamic account is meant for: its agent, or its zone's agents. */
  default List<AgentLink> serving(DynamicAccountSpec spec) {
    return all().stream()
        .filter(agent -> spec.servedBy(agent.agentId(), agent.zoneId()))
        .map(AgentLink.class::cast)
        .toList();
  }
}
