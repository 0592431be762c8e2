package io.spinagent.agent.admin;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.spinagent.agent.cluster.AccountStatus;
import io.spinagent.agent.tunnel.InFlightRequest;
import io.spinagent.common.DaemonThreads;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's own HTTP endpoint ({@code server.port}), on the JDK's HTTP server. It answers the
 * paths Armory Scale Agent's users know, in JSON (documented in docs/agent.md):
 *
 * <ul>
 *   <li>{@code GET /health}: 200 once every account has synced, 503 before; usable as readiness
 *       probe;
 *   <li>{@code GET /accounts}: each account's state, error, cluster and kinds, and the error of the
 *       last configuration reload; Armory's filters and paging ({@link AccountsView});
 *   <li>{@code GET /accounts/{name}} and {@code GET /accounts/{name}/version} (the cluster's
 *       Kubernetes version, asked for now);
 *   <li>{@code GET /operations}: the Kubernetes API requests Clouddriver relayed that are running
 *       or waiting now;
 *   <li>{@code GET /watches}: the watches, by account and watch state;
 *   <li>{@code GET /version}: this agent's version;
 *   <li>{@code GET /metrics} and {@code GET /prometheus_metrics}: the Prometheus exposition.
 * </ul>
 *
 * A query parameter an endpoint does not take, or a value it cannot use, is answered 400 naming the
 * parameter.
 */
public final class AdminServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
  private static final Gson GSON =
      new GsonBuilder().serializeNulls().disableHtmlEscaping().setPrettyPrinting().create();
  private static final String JSON = "application/json";
  private static final String PATHS =
      "/health, /accounts, /accounts/{name}, /accounts/{name}/version, /operations, /watches,"
          + " /version, /metrics, /prometheus_metrics";

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

    /** The requests relayed through the tunnel that have not finished. */
    default List<InFlightRequest> operations() {
      return List.of();
    }

    /** This agent's id ({@code agent.id}). */
    default String agentId() {
      return "";
    }

    /** This agent's version. */
    default String version() {
      return "unknown";
    }

    /** The Kubernetes client of a connected account. */
    default Optional<ApiClient> client(String account) {
      return Optional.empty();
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
        Executors.newFixedThreadPool(2, DaemonThreads.named("spinagent-admin"));
    server.setExecutor(executor);
    Routes routes = new Routes(status, registry);
    server.createContext("/", routes::serve);
    server.start();
    log.info("Serving {} on port {}", PATHS, server.getAddress().getPort());
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

  record Reply(int status, String contentType, String body) {

    static Reply json(int status, Object body) {
      return new Reply(status, JSON, GSON.toJson(body));
    }

    static Reply error(int status, String message) {
      return json(status, Map.of("error", message));
    }
  }

  /** Maps a request to its answer. */
  private static final class Routes {

    private final Status status;
    private final PrometheusMeterRegistry registry;

    Routes(Status status, PrometheusMeterRegistry registry) {
      this.status = status;
      this.registry = registry;
    }

    void serve(HttpExchange exchange) throws IOException {
      try (exchange) {
        String method = exchange.getRequestMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
          exchange.getResponseHeaders().set("Allow", "GET, HEAD");
          exchange.sendResponseHeaders(405, -1);
          return;
        }
        Reply reply;
        try {
          reply = route(exchange.getRequestURI().getPath(), exchange.getRequestURI().getRawQuery());
        } catch (QueryParameters.BadParameter e) {
          Map<String, Object> body = new LinkedHashMap<>();
          body.put("error", e.getMessage());
          body.put("parameter", e.parameter());
          reply = Reply.json(400, body);
        }
        send(exchange, reply, "HEAD".equals(method));
      } catch (RuntimeException e) {
        log.warn("{} failed", exchange.getRequestURI().getPath(), e);
        throw e;
      }
    }

    private Reply route(String rawPath, String query) throws QueryParameters.BadParameter {
      // Armory's troubleshooting guide asks for /accounts/ with a trailing slash.
      String path =
          rawPath.length() > 1 && rawPath.endsWith("/")
              ? rawPath.substring(0, rawPath.length() - 1)
              : rawPath;
      switch (path) {
        case "/health":
          return health(status.accounts());
        case "/accounts":
          return Reply.json(
              200,
              AccountsView.accounts(
                  status.accounts(),
                  status.configError(),
                  QueryParameters.parse(query, AccountsView.ACCOUNT_PARAMETERS)));
        case "/watches":
          return Reply.json(
              200,
              AccountsView.watches(
                  status.accounts(), QueryParameters.parse(query, AccountsView.WATCH_PARAMETERS)));
        case "/operations":
          return operations(QueryParameters.parse(query, Set.of("account")));
        case "/version":
          QueryParameters.parse(query, Set.of());
          return version();
        case "/metrics":
        case "/prometheus_metrics":
          return new Reply(200, PrometheusEndpoint.CONTENT_TYPE, registry.scrape());
        default:
          if (path.startsWith("/accounts/")) {
            return account(path.substring("/accounts/".length()), query);
          }
          return Reply.error(404, "not found; try " + PATHS);
      }
    }

    private Reply operations(QueryParameters query) {
      List<String> accounts = query.all("account");
      List<Map<String, Object>> operations =
          status.operations().stream()
              .filter(o -> accounts.isEmpty() || accounts.contains(o.account()))
              .map(
                  o -> {
                    Map<String, Object> operation = new LinkedHashMap<>();
                    operation.put("id", o.id());
                    operation.put("account", o.account());
                    operation.put("method", o.method());
                    operation.put("verb", o.verb());
                    operation.put("path", o.path());
                    operation.put("receivedAt", o.received().toString());
                    operation.put("state", o.running() ? "running" : "queued");
                    return operation;
                  })
              .toList();
      return Reply.json(200, Map.of("operations", operations));
    }

    private Reply version() {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", "spinagent-agent");
      body.put("version", status.version());
      body.put("agentId", status.agentId());
      body.put("java", Runtime.version().toString());
      return Reply.json(200, body);
    }

    /** {@code /accounts/{name}} and {@code /accounts/{name}/version}. */
    private Reply account(String rest, String query) throws QueryParameters.BadParameter {
      QueryParameters.parse(query, Set.of());
      boolean version = rest.endsWith("/version");
      String name = version ? rest.substring(0, rest.length() - "/version".length()) : rest;
      if (name.isEmpty() || name.contains("/")) {
        return Reply.error(404, "not found; try " + PATHS);
      }
      Optional<AccountStatus> account =
          status.accounts().stream().filter(a -> a.name().equals(name)).findFirst();
      if (account.isEmpty()) {
        return Reply.error(404, "no account named '" + name + "' on this agent");
      }
      if (!version) {
        return Reply.json(200, AccountsView.account(account.get()));
      }
      return ClusterVersion.of(account.get(), status.client(name));
    }

    static Reply health(List<AccountStatus> accounts) {
      boolean synced = accounts.stream().allMatch(AccountStatus::isSynced);
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("status", synced ? "UP" : "SYNCING");
      Map<String, String> states = new LinkedHashMap<>();
      accounts.forEach(a -> states.put(a.name(), a.state().name()));
      body.put("accounts", states);
      return Reply.json(synced ? 200 : 503, body);
    }

    private static void send(HttpExchange exchange, Reply reply, boolean head) throws IOException {
      byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
      exchange
          .getResponseHeaders()
          .set(
              "Content-Type",
              reply.contentType().contains("charset")
                  ? reply.contentType()
                  : reply.contentType() + "; charset=utf-8");
      exchange.sendResponseHeaders(reply.status(), head ? -1 : body.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }
}
