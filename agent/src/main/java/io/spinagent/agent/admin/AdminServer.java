package io.spinagent.agent.admin;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.spinagent.agent.cluster.AccountStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's own HTTP endpoint ({@code server.port}), on the JDK's HTTP server:
 *
 * <ul>
 *   <li>{@code GET /health}: 200 once every account has synced, 503 before; JSON body with the
 *       state of each account (usable as readiness probe);
 *   <li>{@code GET /accounts}: state, error, cluster and kinds of each account, and the error of
 *       the last configuration reload if it failed;
 *   <li>{@code GET /metrics}: the Prometheus exposition of the agent's meters.
 * </ul>
 */
public final class AdminServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
  private static final Gson GSON = new GsonBuilder().serializeNulls().setPrettyPrinting().create();

  /** What the endpoint reports; supplied by the runtime. */
  public interface Status {
    List<AccountStatus> accounts();

    /**
     * The problem of the last configuration reload, or null when the file in use is the file on
     * disk.
     */
    default String configError() {
      return null;
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;

  private AdminServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Listens on all interfaces at {@code port} (0 picks a free one).
   *
   * @throws UncheckedIOException naming {@code server.port} when the port cannot be bound
   */
  public static AdminServer start(int port, Status status, PrometheusMeterRegistry registry) {
    return start(new InetSocketAddress(port), status, registry);
  }

  public static AdminServer start(
      InetSocketAddress address, Status status, PrometheusMeterRegistry registry) {
    HttpServer server;
    try {
      server = HttpServer.create(address, 32);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "server.port: cannot listen on " + address + ": " + e.getMessage(), e);
    }
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            runnable -> {
              Thread thread = new Thread(runnable, "spinagent-admin");
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext("/health", exchange -> serve(exchange, "/health", () -> health(status)));
    server.createContext(
        "/accounts", exchange -> serve(exchange, "/accounts", () -> accounts(status)));
    server.createContext(
        "/metrics",
        exchange ->
            serve(
                exchange,
                "/metrics",
                () -> new Reply(200, PrometheusEndpoint.CONTENT_TYPE, registry.scrape())));
    server.createContext(
        "/",
        exchange ->
            serve(
                exchange,
                "/",
                () ->
                    new Reply(
                        404,
                        "application/json",
                        "{\"error\":\"not found; try /health, /accounts or /metrics\"}")));
    server.start();
    log.info("Serving /health, /accounts and /metrics on port {}", server.getAddress().getPort());
    return new AdminServer(server, executor);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private record Reply(int status, String contentType, String body) {}

  static Reply health(Status status) {
    List<AccountStatus> accounts = status.accounts();
    boolean synced = accounts.stream().allMatch(AccountStatus::isSynced);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", synced ? "UP" : "SYNCING");
    Map<String, String> states = new LinkedHashMap<>();
    accounts.forEach(a -> states.put(a.name(), a.state().name()));
    body.put("accounts", states);
    return new Reply(synced ? 200 : 503, "application/json", GSON.toJson(body));
  }

  static Reply accounts(Status status) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("configError", status.configError());
    body.put(
        "accounts",
        status.accounts().stream()
            .map(
                a -> {
                  Map<String, Object> account = new LinkedHashMap<>();
                  account.put("name", a.name());
                  account.put("state", a.state().name());
                  account.put("error", a.error());
                  account.put("apiServerHost", a.apiServerHost());
                  account.put("kubernetesVersion", a.kubernetesVersion());
                  account.put("objects", a.objects());
                  account.put("attempts", a.attempts());
                  account.put("dynamic", a.dynamic());
                  account.put("watchedKinds", a.watchedKinds());
                  account.put("unwatchableKinds", a.unwatchableKinds());
                  return account;
                })
            .toList());
    return new Reply(200, "application/json", GSON.toJson(body));
  }

  private static void serve(HttpExchange exchange, String path, Supplier<Reply> reply)
      throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!"GET".equals(method) && !"HEAD".equals(method)) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      Reply r =
          "/".equals(path) || path.equals(exchange.getRequestURI().getPath())
              ? reply.get()
              : new Reply(404, "application/json", "{\"error\":\"not found\"}");
      byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
      exchange
          .getResponseHeaders()
          .set(
              "Content-Type",
              r.contentType().contains("charset")
                  ? r.contentType()
                  : r.contentType() + "; charset=utf-8");
      boolean head = "HEAD".equals(method);
      exchange.sendResponseHeaders(r.status(), head ? -1 : body.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (RuntimeException e) {
      log.warn("{} failed", path, e);
      throw e;
    }
  }
}
