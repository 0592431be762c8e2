package io.spinagent.plugin.tunnel;

import com.sun.net.httpserver.HttpExchange;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What the tunnel learns about one request while serving it, for its {@link
 * TunnelOperationListener}.
 */
final class TunnelTrace {

  private final Instant startedAt;
  private final long startNanos = System.nanoTime();
  private final String method;
  private final String query;
  private String account = "";
  private String path = "";
  private String agentId;
  private long firstByteNanos = -1;

  TunnelTrace(HttpExchange exchange, Clock clock) {
    this.startedAt = clock.instant();
    this.method = exchange.getRequestMethod();
    this.query = Objects.requireNonNullElse(exchange.getRequestURI().getRawQuery(), "");
  }

  void target(String account, String path) {
    this.account = account;
    this.path = path;
  }

  void agent(String agentId) {
    this.agentId = agentId;
  }

  /** The agent's response head arrived and goes to the client now. */
  void firstByte() {
    firstByteNanos = System.nanoTime();
  }

  TunnelOperation end(int status) {
    long endNanos = System.nanoTime();
    Duration firstByte =
        Duration.ofNanos((firstByteNanos < 0 ? endNanos : firstByteNanos) - startNanos);
    return new TunnelOperation(
        account,
        agentId,
        method,
        path,
        query,
        status,
        startedAt,
        firstByte,
        Duration.ofNanos(endNanos - startNanos));
  }
}
