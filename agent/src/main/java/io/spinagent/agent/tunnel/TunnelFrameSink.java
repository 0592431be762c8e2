package io.spinagent.agent.tunnel;

import io.spinagent.protocol.v1.TunnelFrame;

/** Where the agent's tunnel frames go: the session with Clouddriver. Never blocks. */
@FunctionalInterface
public interface TunnelFrameSink {

  /** Sends {@code frames} in order; frames of one call are written together, in one hand-off. */
  void send(TunnelFrame... frames);
}
