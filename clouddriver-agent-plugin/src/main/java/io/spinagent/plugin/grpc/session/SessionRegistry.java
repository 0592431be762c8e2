package io.spinagent.plugin.grpc.session;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agents connected to this replica, by agent id: one live session per id. */
public final class SessionRegistry {

  private static final Logger log = LoggerFactory.getLogger(SessionRegistry.class);

  private final ConcurrentHashMap<String, AgentSession> byAgentId = new ConcurrentHashMap<>();
  private final List<SessionListener> listeners = new CopyOnWriteArrayList<>();

  public void addListener(SessionListener listener) {
    listeners.add(listener);
  }

  void welcomed(AgentSession session) {
    for (SessionListener listener : listeners) {
      try {
        listener.welcomed(session);
      } catch (RuntimeException e) {
        log.error(
            "Session listener {} failed for agent '{}'",
            listener.getClass().getSimpleName(),
            session.agentId(),
            e);
      }
    }
  }

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
