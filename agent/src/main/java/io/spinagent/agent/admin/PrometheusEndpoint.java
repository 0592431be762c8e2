package io.spinagent.agent.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.spinagent.common.DaemonThreads;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /metrics} in Prometheus' text format on {@code prometheus.port}, with the JDK's
 * HTTP server: a scrape every few seconds needs nothing more. {@code /prometheus_metrics}, the path
 * Armory Scale Agent's ServiceMonitors scrape, answers the same.
 */
public final class PrometheusEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PrometheusEndpoint.class);
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private PrometheusEndpoint(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Listens on all interfaces at {@code port} (0 picks a free one).
   *
   * @throws UncheckedIOException naming {@code prometheus.port} when the port cannot be bound
   */
  public static PrometheusEndpoint start(int port, PrometheusMeterRegistry registry) {
    return start(new InetSocketAddress(port), registry);
  }

  public static PrometheusEndpoint start(
      InetSocketAddress address, PrometheusMeterRegistry registry) {
    HttpServer server;
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "prometheus.port: cannot listen on " + address + ": " + e.getMessage(), e);
    }
    ExecutorService executor =
        Executors.newSingleThreadExecutor(DaemonThreads.named("spinagent-metrics"));
    server.setExecutor(executor);
    server.createContext("/", exchange -> serve(exchange, registry));
    server.start();
    log.info(
        "Serving Prometheus metrics on port {} at /metrics and /prometheus_metrics",
        server.getAddress().getPort());
    return new PrometheusEndpoint(server, executor);
  }

  /** The port actually bound. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private static void serve(HttpExchange exchange, PrometheusMeterRegistry registry)
      throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())
          && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      String path = exchange.getRequestURI().getPath();
      if (!"/metrics".equals(path) && !"/prometheus_metrics".equals(path)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(200, head ? -1 : body.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }
}
