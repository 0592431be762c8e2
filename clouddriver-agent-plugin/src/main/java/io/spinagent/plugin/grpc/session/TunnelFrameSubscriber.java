package io.spinagent.plugin.grpc.session;

import io.spinagent.protocol.v1.TunnelFrame;

/**
 * Receives the tunnel frames of one agent session. The tunnel, which sits above the session layer,
 * subscribes one per session ({@link AgentSession#subscribeTunnel}); the session knows no more of
 * the tunnel than this.
 */
public interface TunnelFrameSubscriber {

  /** A tunnel frame from the agent, in the order the agent sent it, on the session's thread. */
  void received(TunnelFrame frame);

  /** The session ended; no frame follows. */
  void sessionClosed(String reason);
}
