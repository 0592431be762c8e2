package io.spinagent.plugin.http;

/**
 * How many connections may wait to be accepted by a {@link NettyHttpServer} (the tunnel and the
 * forwarding endpoint). The JDK's usual 50 overflows when a Clouddriver replica starts many kubectl
 * processes at once (deploys to many accounts), and each connection the kernel drops costs its
 * kubectl 1, 3, 7 … seconds of retransmitted SYNs. The kernel caps it at {@code
 * net.core.somaxconn}.
 */
public final class Backlog {

  public static final int CONNECTIONS = 1024;

  private Backlog() {}
}
