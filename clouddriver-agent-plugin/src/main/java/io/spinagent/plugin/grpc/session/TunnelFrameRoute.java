package io.spinagent.plugin.grpc.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.protocol.v1.TunnelFrame;

/**
 * Where a session's tunnel frames go: to the one {@link TunnelFrameSubscriber} (the tunnel) that
 * subscribed, which is told when the session ends. Frames that come before anyone subscribed have
 * nowhere to go and are dropped.
 */
final class TunnelFrameRoute {

  // Set under this; read without it on every tunnel frame.
  private volatile TunnelFrameSubscriber subscriber;

  @GuardedBy("this")
  private boolean closed;

  /**
   * Hands the frames to {@code subscriber} from now on; false when the session has ended.
   *
   * @throws IllegalStateException when another subscriber came first
   */
  synchronized boolean subscribe(TunnelFrameSubscriber subscriber, String agentId) {
    if (closed) {
      return false;
    }
    if (this.subscriber != null) {
      throw new IllegalStateException(
          "agent '" + agentId + "': this session's tunnel frames already have a subscriber");
    }
    this.subscriber = subscriber;
    return true;
  }

  /** A tunnel frame from the agent. */
  void received(TunnelFrame frame) {
    TunnelFrameSubscriber current = subscriber;
    if (current != null) {
      current.received(frame);
    }
  }

  /** The session ended: its subscriber, if any, is told why; nobody can subscribe any more. */
  void close(String reason) {
    TunnelFrameSubscriber last;
    synchronized (this) {
      closed = true;
      last = subscriber;
    }
    if (last != null) {
      last.sessionClosed(reason);
    }
  }
}
