package io.spinagent.agent.admin;

import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.spinagent.agent.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /metrics} in Prometheus' text format on {@code prometheus.port}, on an {@link
 * AdminHttpServer} with the {@code server.*} limits. {@code /prometheus_metrics}, the path Armory
 * Scale Agent's ServiceMonitors scrape, answers the same.
 */
public final class PrometheusEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PrometheusEndpoint.class);
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final AdminHttpServer server;

  private PrometheusEndpoint(AdminHttpServer server) {
    this.server = server;
  }

  /** Listens on all interfaces at {@code port} (0 picks a free one), with the default limits. */
  public static PrometheusEndpoint start(int port, PrometheusMeterRegistry registry) {
    return start(new ServerConfig(port), registry);
  }

  /**
   * Listens on all interfaces at {@code server.port()} (0 picks a free one), holding clients to the
   * limits of {@code server}.
   *
   * @throws UncheckedIOException naming {@code prometheus.port} when the port cannot be bound
   */
  public static PrometheusEndpoint start(ServerConfig server, PrometheusMeterRegistry registry) {
    AdminHttpServer http;
    try {
      http =
          AdminHttpServer.start(
              "spinagent-metrics",
              server,
              (path, query) ->
                  CompletableFuture.completedFuture(
                      "/metrics".equals(path) || "/prometheus_metrics".equals(path)
                          ? new AdminServer.Reply(200, CONTENT_TYPE, registry.scrape())
                          : AdminServer.Reply.error(
                              404, "not found; try /metrics or /prometheus_metrics")));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "prometheus.port: cannot listen on port " + server.port() + ": " + e.getMessage(), e);
    }
    log.info(
        "Serving Prometheus metrics on port {} at /metrics and /prometheus_metrics", http.port());
    return new PrometheusEndpoint(http);
  }

  /** The port actually bound. */
  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
  }
}
