package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.grpc.session.TunnelFrameSubscriber;
import io.spinagent.protocol.v1.TunnelCancel;
import io.spinagent.protocol.v1.TunnelEnd;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.TunnelRequestHead;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The tunnel streams open on one agent session: ids, routing of the agent's frames, cleanup. It
 * subscribes to the session's tunnel frames (see {@link SessionTunnels}).
 */
final class AgentTunnels implements TunnelFrameSubscriber {

  private final AtomicLong lastId = new AtomicLong();
  private final Map<Long, TunnelStream> open = new ConcurrentHashMap<>();
  private final Consumer<TunnelFrame> toAgent;
  private final Runnable onSessionClosed;

  /**
   * @param toAgent sends a frame over the session
   * @param onSessionClosed runs once the session has ended and every open stream has failed
   */
  AgentTunnels(Consumer<TunnelFrame> toAgent, Runnable onSessionClosed) {
    this.toAgent = toAgent;
    this.onSessionClosed = onSessionClosed;
  }

  TunnelStream open(TunnelRequestHead head, int window) {
    long id = lastId.incrementAndGet();
    TunnelStream stream = new TunnelStream(id, window, this::send);
    open.put(id, stream);
    send(
        TunnelFrame.newBuilder()
            .setStreamId(id)
            .setRequestHead(head.toBuilder().setInitialWindow(window)));
    return stream;
  }

  /** A frame from the agent; frames of streams already finished (e.g. cancelled) are dropped. */
  @Override
  public void received(TunnelFrame frame) {
    TunnelStream stream = open.get(frame.getStreamId());
    if (stream == null) {
      return;
    }
    stream.receive(frame);
    if (frame.hasEnd() || frame.hasCancel()) {
      open.remove(frame.getStreamId());
    }
  }

  /** Ends our side of the request body. */
  void endRequest(TunnelStream stream) {
    send(TunnelFrame.newBuilder().setStreamId(stream.id()).setEnd(TunnelEnd.getDefaultInstance()));
  }

  /** The client went away or gave up: the agent stops the request. */
  void cancel(TunnelStream stream, String reason) {
    if (open.remove(stream.id()) != null) {
      send(
          TunnelFrame.newBuilder()
              .setStreamId(stream.id())
              .setCancel(TunnelCancel.newBuilder().setReason(reason)));
    }
  }

  void finished(TunnelStream stream) {
    open.remove(stream.id());
  }

  /** The session ended: every open request fails with {@code reason}. */
  @Override
  public void sessionClosed(String reason) {
    List<TunnelStream> streams = List.copyOf(open.values());
    open.clear();
    streams.forEach(stream -> stream.fail(reason));
    onSessionClosed.run();
  }

  private void send(TunnelFrame.Builder frame) {
    toAgent.accept(frame.build());
  }
}
