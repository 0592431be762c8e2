package io.spinagent.agent.admin;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.spinagent.agent.cluster.AccountStatus;
import io.spinagent.agent.config.ServerConfig;
import io.spinagent.agent.tunnel.InFlightRequest;
import io.spinagent.common.DaemonThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's own HTTP endpoint ({@code server.port}), on an {@link AdminHttpServer}, which holds
 * clients to the {@code server.*} limits. It answers the paths Armory Scale Agent's users know, in
 * JSON (documented in docs/agent.md):
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
 * parameter. Every answer comes from memory, on the server's event loop, but a cluster's version,
 * which is asked for on a {@code spinagent-admin} thread.
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

  private final AdminHttpServer server;
  private final ExecutorService clusterCalls;

  private AdminServer(AdminHttpServer server, ExecutorService clusterCalls) {
    this.server = server;
    this.clusterCalls = clusterCalls;
  }

  /**
   * Listens on all interfaces at {@code server.port()} (0 picks a free one), holding clients to the
   * limits of {@code server}.
   *
   * @throws UncheckedIOException naming {@code server.port} when the port cannot be bound
   */
  public static AdminServer start(
      ServerConfig server, Status status, PrometheusMeterRegistry registry) {
    // Asking a cluster for its version waits on the network: never on the event loop.
    ExecutorService clusterCalls =
        Executors.newFixedThreadPool(2, DaemonThreads.named("spinagent-admin"));
    Routes routes = new Routes(status, registry, clusterCalls);
    AdminHttpServer http;
    try {
      http = AdminHttpServer.start("spinagent-admin", server, routes::answer);
    } catch (IOException e) {
      clusterCalls.shutdownNow();
      throw new UncheckedIOException(
          "server.port: cannot listen on port " + server.port() + ": " + e.getMessage(), e);
    }
    log.info("Serving {} on port {}", PATHS, http.port());
    return new AdminServer(http, clusterCalls);
  }

  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
    clusterCalls.shutdownNow();
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
    private final Executor clusterCalls;

    Routes(Status status, PrometheusMeterRegistry registry, Executor clusterCalls) {
      this.status = status;
      this.registry = registry;
      this.clusterCalls = clusterCalls;
    }

    /** Answers from memory at once; a cluster's version on {@code clusterCalls}. */
    CompletionStage<Reply> answer(String requested, String query) {
      // Armory's troubleshooting guide asks for /accounts/ with a trailing slash.
      String path =
          requested.length() > 1 && requested.endsWith("/")
              ? requested.substring(0, requested.length() - 1)
              : requested;
      try {
        Optional<String> versionOf = clusterVersionOf(path);
        if (versionOf.isPresent()) {
          QueryParameters.parse(query, Set.of());
          return CompletableFuture.supplyAsync(() -> clusterVersion(versionOf.get()), clusterCalls);
        }
        return CompletableFuture.completedFuture(route(path, query));
      } catch (QueryParameters.BadParameter e) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", e.getMessage());
        body.put("parameter", e.parameter());
        return CompletableFuture.completedFuture(Reply.json(400, body));
      } catch (RejectedExecutionException stopping) {
        return CompletableFuture.completedFuture(Reply.error(503, "the agent is stopping"));
      }
    }

    private Reply route(String path, String query) throws QueryParameters.BadParameter {
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

    /** {@code /accounts/{name}}. */
    private Reply account(String name, String query) throws QueryParameters.BadParameter {
      QueryParameters.parse(query, Set.of());
      if (name.isEmpty() || name.contains("/")) {
        return Reply.error(404, "not found; try " + PATHS);
      }
      return find(name)
          .map(account -> Reply.json(200, AccountsView.account(account)))
          .orElseGet(() -> noSuchAccount(name));
    }

    /** The account name of {@code /accounts/{name}/version}. */
    private static Optional<String> clusterVersionOf(String path) {
      if (!path.startsWith("/accounts/") || !path.endsWith("/version")) {
        return Optional.empty();
      }
      String name = path.substring("/accounts/".length(), path.length() - "/version".length());
      return name.isEmpty() || name.contains("/") ? Optional.empty() : Optional.of(name);
    }

    /** {@code /accounts/{name}/version}: the cluster's version, asked for now. */
    private Reply clusterVersion(String name) {
      return find(name)
          .map(account -> ClusterVersion.of(account, status.client(name)))
          .orElseGet(() -> noSuchAccount(name));
    }

    private Optional<AccountStatus> find(String name) {
      return status.accounts().stream().filter(a -> a.name().equals(name)).findFirst();
    }

    private static Reply noSuchAccount(String name) {
      return Reply.error(404, "no account named '" + name + "' on this agent");
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
  }
}
