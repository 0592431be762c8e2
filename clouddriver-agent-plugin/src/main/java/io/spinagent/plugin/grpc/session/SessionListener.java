package io.spinagent.plugin.grpc.session;

/** Told when an agent completed its handshake on this replica (after its Welcome was sent). */
public interface SessionListener {

  void welcomed(AgentSession session);
}
