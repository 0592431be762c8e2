package io.spinagent.plugin.grpc.session;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.spinagent.protocol.v1.Ack;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.RefusedChange;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything the plugin sends on one agent's stream, written only while gRPC says the stream is
 * ready, so an agent that does not read costs a bounded amount of memory. Acknowledgements are
 * cumulative and coalesce per account; other frames queue up to a bound, past which the agent is
 * considered stuck.
 */
final class OutboundFrames {

  private final ServerCallStreamObserver<PluginMessage> call;
  private final int maxQueuedFrames;
  private final Consumer<PluginMessage> sentListener;
  private final ArrayDeque<PluginMessage> queued = new ArrayDeque<>();
  private final Map<String, Ack.Builder> acks = new LinkedHashMap<>();
  private boolean closed;

  OutboundFrames(
      ServerCallStreamObserver<PluginMessage> call,
      int maxQueuedFrames,
      Consumer<PluginMessage> sentListener) {
    this.call = call;
    this.maxQueuedFrames = maxQueuedFrames;
    this.sentListener = sentListener;
    call.setOnReadyHandler(this::drain);
  }

  /** Queues a frame; false when the agent has let more than the bound pile up. */
  synchronized boolean send(PluginMessage message) {
    if (closed) {
      return true;
    }
    if (queued.size() >= maxQueuedFrames) {
      return false;
    }
    queued.add(message);
    drain();
    return true;
  }

  /**
   * Acknowledges the account's stream up to {@code sequence}, reporting {@code refused} changes
   * with it; an acknowledgement not yet sent absorbs this one (refused changes accumulate).
   */
  synchronized void acknowledge(String account, long sequence, List<RefusedChange> refused) {
    if (closed) {
      return;
    }
    Ack.Builder ack = acks.computeIfAbsent(account, a -> Ack.newBuilder().setAccount(a));
    ack.setSequence(Math.max(ack.getSequence(), sequence)).addAllRefused(refused);
    drain();
  }

  synchronized void drain() {
    while (!closed && call.isReady() && (!acks.isEmpty() || !queued.isEmpty())) {
      PluginMessage next;
      if (!acks.isEmpty()) {
        var it = acks.entrySet().iterator();
        var ack = it.next();
        it.remove();
        next = PluginMessage.newBuilder().setAck(ack.getValue()).build();
      } else {
        next = queued.poll();
      }
      call.onNext(next);
      sentListener.accept(next);
    }
  }

  /** Ends the stream; OK completes it, anything else fails it with that status. Idempotent. */
  /** Whether the transport ended the call (the agent's connection is gone). */
  boolean transportGone() {
    return call.isCancelled();
  }

  synchronized void close(Status status) {
    if (closed) {
      return;
    }
    closed = true;
    queued.clear();
    acks.clear();
    if (call.isCancelled()) {
      return;
    }
    try {
      if (status.isOk()) {
        call.onCompleted();
      } else {
        call.onError(status.asRuntimeException());
      }
    } catch (IllegalStateException alreadyClosed) {
      // The transport ended the call first; nothing left to tell the agent.
    }
  }
}
