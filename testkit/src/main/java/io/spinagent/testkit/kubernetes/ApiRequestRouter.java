package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The entry point of one cluster's requests: health and version without authentication, then
 * authentication, then discovery, OpenAPI or a resource request. Every failure leaves as a
 * Kubernetes Status body. Each answered request goes to the request log when its exchange ends (for
 * a watch: when the stream ends).
 */
final class ApiRequestRouter {

  private static final Logger LOG = Logger.getLogger(ApiRequestRouter.class.getName());

  private final ResourceTypeRegistry registry;
  private final DiscoveryDocument discovery;
  private final OpenApiDocument openApi;
  private final ResourceRequestHandler resources;
  private final AccessControl accessControl;
  private final FaultInjector faults;
  private final RequestLog requestLog;
  private final ObjectNode version;
  private final Supplier<String> serverAddress;
  private final boolean aggregatedDiscovery;

  ApiRequestRouter(
      ResourceTypeRegistry registry,
      ResourceRequestHandler resources,
      AccessControl accessControl,
      FaultInjector faults,
      RequestLog requestLog,
      String gitVersion,
      Supplier<String> serverAddress,
      boolean aggregatedDiscovery) {
    this.registry = registry;
    this.discovery = new DiscoveryDocument(registry);
    this.openApi = new OpenApiDocument(registry, gitVersion);
    this.resources = resources;
    this.accessControl = accessControl;
    this.faults = faults;
    this.requestLog = requestLog;
    this.version = versionInfo(gitVersion);
    this.serverAddress = serverAddress;
    this.aggregatedDiscovery = aggregatedDiscovery;
  }

  /**
   * Serves one request on the listener's handler thread.
   *
   * @param pathPrefix the part of the path that selected this cluster ("" when it has a listener of
   *     its own)
   * @param pump streams watches once the handler has returned
   */
  void serve(HttpExchange httpExchange, String pathPrefix, WatchPump pump) throws IOException {
    ApiExchange exchange = new ApiExchange(httpExchange, pathPrefix);
    exchange.whenAnswered(
        () ->
            requestLog.record(
                new RequestLog.Entry(
                    exchange.method(),
                    exchange.uri(),
                    exchange.header("Accept"),
                    exchange.status(),
                    exchange.user(),
                    exchange.watchExpired())));
    try {
      faults.beforeRequest(exchange.method(), exchange.path());
      route(exchange, pump);
    } catch (ApiError error) {
      if (!exchange.hasResponded()) {
        exchange.sendError(error);
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "request failed: " + exchange.method() + " " + exchange.path(), e);
      if (!exchange.hasResponded()) {
        exchange.sendError(new ApiError(500, "InternalError", "Internal error occurred: " + e));
      }
    } finally {
      if (!exchange.isDetached()) {
        exchange.complete();
      }
    }
  }

  /** Answers /api or /apis with aggregated discovery when served and asked for. */
  private boolean sendAggregated(ApiExchange exchange, boolean core) throws IOException {
    if (!aggregatedDiscovery) {
      return false;
    }
    Optional<String> version = DiscoveryDocument.aggregatedVersion(exchange.header("Accept"));
    if (version.isEmpty()) {
      return false;
    }
    exchange.sendJson(
        200,
        discovery.aggregated(core, version.get()),
        DiscoveryDocument.aggregatedContentType(version.get()));
    return true;
  }

  private void route(ApiExchange exchange, WatchPump pump) throws IOException {
    List<String> s = exchange.segments();
    String first = s.isEmpty() ? "" : s.get(0);
    switch (first) {
      case "healthz", "livez", "readyz" -> {
        exchange.sendText(200, "ok");
        return;
      }
      case "version" -> {
        exchange.sendJson(200, version);
        return;
      }
      default -> {}
    }
    AccessControl.Principal principal =
        accessControl.authenticate(exchange.header("Authorization"));
    exchange.user(principal.user());
    switch (first) {
      case "" -> exchange.sendJson(200, rootPaths());
      case "api" -> {
        if (s.size() == 1) {
          if (!sendAggregated(exchange, true)) {
            exchange.sendJson(200, discovery.apiVersions(serverAddress.get()));
          }
        } else if (s.size() == 2) {
          exchange.sendJson(200, discovery.apiResourceList("", s.get(1)));
        } else {
          resource(exchange, "", s.get(1), s.subList(2, s.size()), principal, pump);
        }
      }
      case "apis" -> {
        if (s.size() == 1) {
          if (!sendAggregated(exchange, false)) {
            exchange.sendJson(200, discovery.apiGroupList());
          }
        } else if (s.size() == 2) {
          exchange.sendJson(200, discovery.apiGroup(s.get(1)));
        } else if (s.size() == 3) {
          exchange.sendJson(200, discovery.apiResourceList(s.get(1), s.get(2)));
        } else {
          resource(exchange, s.get(1), s.get(2), s.subList(3, s.size()), principal, pump);
        }
      }
      case "openapi" -> {
        if (s.size() == 2 && s.get(1).equals("v3")) {
          exchange.sendJson(200, openApi.index());
        } else if (s.size() > 2 && s.get(1).equals("v3")) {
          exchange.sendJson(200, openApi.groupVersion(String.join("/", s.subList(2, s.size()))));
        } else {
          throw ApiError.notFoundPath();
        }
      }
      default -> throw ApiError.notFoundPath();
    }
  }

  private void resource(
      ApiExchange exchange,
      String group,
      String version,
      List<String> rest,
      AccessControl.Principal principal,
      WatchPump pump)
      throws IOException {
    if (!registry.hasGroupVersion(group, version)) {
      throw ApiError.notFoundPath();
    }
    resources.handle(exchange, ResourcePath.parse(registry, group, version, rest), principal, pump);
  }

  private ObjectNode rootPaths() {
    ObjectNode root = Json.object();
    ArrayNode paths = root.putArray("paths");
    paths.add("/api").add("/api/v1").add("/apis");
    for (String group : registry.groupNames()) {
      paths.add("/apis/" + group);
      registry.versions(group).forEach(v -> paths.add("/apis/" + group + "/" + v));
    }
    paths.add("/healthz").add("/livez").add("/openapi/v3").add("/readyz").add("/version");
    return root;
  }

  private static ObjectNode versionInfo(String gitVersion) {
    String[] numbers = gitVersion.replaceFirst("^v", "").split("[.+-]", 0);
    ObjectNode info = Json.object();
    info.put("major", numbers.length > 0 ? numbers[0] : "1");
    info.put("minor", numbers.length > 1 ? numbers[1] : "0");
    info.put("gitVersion", gitVersion);
    info.put("gitCommit", "0000000000000000000000000000000000000000");
    info.put("gitTreeState", "clean");
    info.put("buildDate", "2024-01-01T00:00:00Z");
    info.put("goVersion", "go1.21.9");
    info.put("compiler", "gc");
    info.put("platform", "linux/amd64");
    return info;
  }
}
