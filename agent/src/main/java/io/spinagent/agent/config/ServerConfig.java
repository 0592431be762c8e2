package io.spinagent.agent.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The agent's own HTTP endpoint for health and status ({@code server.*}), and the limits its
 * clients are held to there and on {@code prometheus.port}, so that slow or idle clients cannot
 * keep the probes and scrapes from being answered.
 *
 * @param port TCP port, 1 to 65535
 * @param headerTimeout how long a client may take to send a request, from the connection's start or
 *     the first byte of its next request; a slower one is answered 408 and disconnected
 * @param idleTimeout how long a kept-alive connection may wait for its next request before it is
 *     closed
 * @param maxConnections connections open at once; past it, a new connection takes the place of the
 *     one that has waited longest without a request being answered
 */
public record ServerConfig(
    int port, Duration headerTimeout, Duration idleTimeout, int maxConnections) {

  /** Armory Scale Agent's port, so existing probes and Services keep working. */
  public static final int DEFAULT_PORT = 8082;

  /** A probe or a scrape sends its few hundred bytes at once; ten seconds is for a slow network. */
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);

  /** Longer than Prometheus' usual scrape interval, so a scraper keeps its connection. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  /** Kubelet's probes, a few scrapers and people: far fewer. */
  public static final int DEFAULT_MAX_CONNECTIONS = 64;

  public ServerConfig {
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
  }

  /** {@code port} with the default limits. */
  public ServerConfig(int port) {
    this(port, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS);
  }

  /** The same limits on another port: {@code prometheus.port}, or a free port in tests. */
  public ServerConfig withPort(int otherPort) {
    return new ServerConfig(otherPort, headerTimeout, idleTimeout, maxConnections);
  }
}
