package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.grpc.session.AgentSession;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tunnel streams of this replica's agent sessions: one {@link AgentTunnels} per session,
 * subscribed to the session's tunnel frames at its first request and forgotten when it ends.
 */
final class SessionTunnels {

  private final Map<AgentSession, AgentTunnels> bySession = new ConcurrentHashMap<>();

  /** The tunnel streams of {@code session}; empty when the session has ended. */
  Optional<AgentTunnels> of(AgentSession session) {
    return Optional.ofNullable(bySession.computeIfAbsent(session, this::subscribe));
  }

  private AgentTunnels subscribe(AgentSession session) {
    AgentTunnels tunnels = new AgentTunnels(session::sendTunnel, () -> bySession.remove(session));
    // The session's lock is taken inside the map's: the session calls back (sessionClosed)
    // only after releasing its lock, so the two never wait on each other.
    return session.subscribeTunnel(tunnels) ? tunnels : null;
  }
}
