package io.spinagent.plugin.grpc.auth;

import io.grpc.Context;
import java.net.SocketAddress;

/**
 * Who is on the other end of an agent call, as far as the transport and the credentials tell.
 *
 * @param principal who the call authenticated as: {@code x509:<subject>} with a client certificate,
 *     else the identity of its bearer token ({@code token:<name>}, or {@code token:sha256:<prefix>}
 *     for an unnamed token), else {@link #ANONYMOUS}
 */
public record AgentPeer(SocketAddress address, String certificateSubject, String principal) {

  /** The principal of a call that presented no credentials (none are configured). */
  public static final String ANONYMOUS = "anonymous";

  static final Context.Key<AgentPeer> KEY = Context.key("spinagent-peer");

  private static final AgentPeer UNKNOWN = new AgentPeer(null, null, ANONYMOUS);

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
