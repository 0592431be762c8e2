package io.spinagent.plugin.grpc.session;

import io.spinagent.plugin.accounts.ConnectedAgents;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The agents connected to this replica, by agent id: one live session per id. */
public final class SessionRegistry implements ConnectedAgents {

  private final ConcurrentHashMap<String, AgentSession> byAgentId = new ConcurrentHashMap<>();

  /** Registers the session, or returns the one already holding its agent id. */
  Optional<AgentSession> register(AgentSession session) {
    return Optional.ofNullable(byAgentId.putIfAbsent(session.agentId(), session));
  }

  void unregister(AgentSession session) {
    byAgentId.remove(session.agentId(), session);
  }

  public Optional<AgentSession> find(String agentId) {
    return Optional.ofNullable(byAgentId.get(agentId));
  }

  @Override
  public Collection<AgentSession> all() {
    return List.copyOf(byAgentId.values());
  }

  public int size() {
    return byAgentId.size();
  }

  /** Ends every session, e.g. when the plugin stops. */
  public void closeAll(io.grpc.Status status) {
    all().forEach(session -> session.close(status));
  }
}
