package io.spinagent.plugin.grpc.auth;

import io.grpc.Context;
import java.net.SocketAddress;

/** Who is on the other end of an agent call, as far as the transport can tell. */
public record AgentPeer(SocketAddress address, String certificateSubject) {

  static final Context.Key<AgentPeer> KEY = Context.key("spinagent-peer");

  private static final AgentPeer UNKNOWN = new AgentPeer(null, null);

  /** The peer of the call being handled on this thread. */
  public static AgentPeer current() {
    AgentPeer peer = KEY.get();
    return peer == null ? UNKNOWN : peer;
  }

  public String describe() {
    String where = address == null ? "unknown address" : address.toString();
    return certificateSubject == null ? where : where + " [" + certificateSubject + "]";
  }
}
