package io.spinagent.plugin.tunnel;

import com.google.protobuf.ByteString;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.TunnelResponseHead;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The plugin's end of one tunneled HTTP exchange. The HTTP thread sends the request through it and
 * reads the response from it; frames from the agent arrive on the session's thread. Buffered
 * response bytes never exceed the credit the plugin granted, so memory per stream is bounded.
 */
final class TunnelStream {

  private final long id;
  private final int window;
  private final Consumer<TunnelFrame.Builder> toAgent;
  private final ArrayDeque<ByteString> chunks = new ArrayDeque<>();
  private long requestCredit;
  private TunnelResponseHead head;
  private boolean responseEnded;
  private String failure;
  private int consumedSinceGrant;

  TunnelStream(long id, int window, Consumer<TunnelFrame.Builder> toAgent) {
    this.id = id;
    this.window = window;
    this.toAgent = toAgent;
  }

  long id() {
    return id;
  }

  // --- frames from the agent (session thread) ---

  synchronized void receive(TunnelFrame frame) {
    switch (frame.getFrameCase()) {
      case WINDOW -> requestCredit += frame.getWindow().getBytes();
      case RESPONSE_HEAD -> head = frame.getResponseHead();
      case BODY -> chunks.add(frame.getBody());
      case END -> {
        responseEnded = true;
        if (!frame.getEnd().getError().isEmpty()) {
          failure = frame.getEnd().getError();
        }
      }
      case CANCEL -> fail("the agent cancelled the request: " + frame.getCancel().getReason());
      default -> fail("unexpected " + frame.getFrameCase() + " frame from the agent");
    }
    notifyAll();
  }

  synchronized void fail(String reason) {
    if (failure == null) {
      failure = reason;
    }
    responseEnded = true;
    notifyAll();
  }

  // --- the HTTP side ---

  /** Sends a request body chunk once the agent has granted credit for it; false on failure. */
  boolean sendBody(ByteString chunk, Duration timeout) throws InterruptedException {
    synchronized (this) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (requestCredit < chunk.size() && failure == null) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      if (failure != null) {
        return false;
      }
      requestCredit -= chunk.size();
    }
    toAgent.accept(TunnelFrame.newBuilder().setStreamId(id).setBody(chunk));
    return true;
  }

  /** The response head, or null when none came within {@code timeout} (or the stream failed). */
  synchronized TunnelResponseHead awaitHead(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (head == null && failure == null) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return head;
  }

  /**
   * The next response body chunk; null at the end of the body. Waits as long as the agent keeps the
   * stream open: a watch may stay quiet for minutes.
   */
  ByteString nextChunk() throws InterruptedException {
    ByteString chunk;
    synchronized (this) {
      while (chunks.isEmpty() && !responseEnded) {
        wait();
      }
      chunk = chunks.poll();
      if (chunk == null) {
        return null;
      }
      consumedSinceGrant += chunk.size();
      if (consumedSinceGrant < window / 2) {
        return chunk;
      }
    }
    // Half the window was read: give it back, so the agent keeps streaming while we write.
    int grant;
    synchronized (this) {
      grant = consumedSinceGrant;
      consumedSinceGrant = 0;
    }
    toAgent.accept(
        TunnelFrame.newBuilder()
            .setStreamId(id)
            .setWindow(io.spinagent.protocol.v1.TunnelWindow.newBuilder().setBytes(grant)));
    return chunk;
  }

  synchronized String failure() {
    return failure;
  }
}
