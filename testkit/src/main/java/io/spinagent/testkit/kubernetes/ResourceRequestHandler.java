package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves requests for resources: maps HTTP method and URL to a Kubernetes verb (get, list, watch,
 * create, update, patch, delete, deletecollection), authorizes it, and runs it against the store;
 * or, for the resources that are answered rather than stored, reviews the caller's access or
 * computes resource metrics.
 */
final class ResourceRequestHandler {

  private final ResourceStore store;
  private final AccessControl accessControl;
  private final Duration defaultWatchTimeout;
  private final Duration bookmarkInterval;
  private final PodLogs podLogs;
  private final ServerSideTables tables;
  private final ResourceMetrics metrics;
  private final LongAdder listedObjects = new LongAdder();

  ResourceRequestHandler(
      ResourceStore store,
      AccessControl accessControl,
      Duration defaultWatchTimeout,
      Duration bookmarkInterval,
      PodLogs podLogs,
      ServerSideTables tables,
      ResourceMetrics metrics) {
    this.store = store;
    this.accessControl = accessControl;
    this.defaultWatchTimeout = defaultWatchTimeout;
    this.bookmarkInterval = bookmarkInterval;
    this.podLogs = podLogs;
    this.tables = tables;
    this.metrics = metrics;
  }

  void handle(
      ApiExchange exchange, ResourcePath path, AccessControl.Principal principal, WatchPump pump)
      throws IOException {
    ResourceType type = path.type();
    boolean watch = path.legacyWatch() || exchange.flag("watch");
    String verb = verbOf(exchange.method(), path, watch);
    if (type.serving() == ResourceType.Serving.ACCESS_REVIEW) {
      // SelfSubjectAccessReview: every authenticated caller may ask about itself.
      if (!verb.equals("create")) {
        throw ApiError.methodNotAllowed();
      }
      ObjectNode review =
          ProtobufRequestBodies.isProtobuf(exchange.header("Content-Type"))
              ? ProtobufRequestBodies.selfSubjectAccessReview(exchange.body())
              : Json.parseObject(exchange.body());
      exchange.sendJson(201, accessControl.review(principal, review, store.types()));
      return;
    }
    if (ProtobufRequestBodies.isProtobuf(exchange.header("Content-Type"))
        && exchange.body().length > 0) {
      throw new ApiError(
          415,
          "UnsupportedMediaType",
          "the test server reads protobuf bodies only for "
              + "SelfSubjectAccessReview; send "
              + type.kind()
              + " as application/json");
    }
    accessControl.authorize(
        principal,
        new AccessControl.AccessRequest(
            principal.user(),
            verb,
            type.group(),
            type.plural(),
            path.subresource(),
            path.namespace() == null ? "" : path.namespace(),
            path.name()));
    if ("log".equals(path.subresource()) && !verb.equals("get")) {
      throw ApiError.methodNotAllowed();
    }
    boolean dryRun = "All".equals(exchange.query("dryRun"));
    ResponseShape shape = ResponseShape.negotiate(exchange.header("Accept"));
    String includeObject = exchange.query("includeObject");
    if (type.serving() == ResourceType.Serving.METRICS) {
      metrics(exchange, path, verb, shape, includeObject);
      return;
    }
    switch (verb) {
      case "get" -> {
        StoredObject object = store.get(type, path.namespace(), path.name());
        if ("log".equals(path.subresource())) {
          podLogs.serve(
              exchange, object.tree(), () -> store.exists(type, path.namespace(), path.name()));
        } else if ("scale".equals(path.subresource())) {
          exchange.sendJson(200, ScaleSubresource.toScale(type, object.tree()));
        } else {
          exchange.sendJson(200, shape.single(object, type, includeObject, tables));
        }
      }
      case "list" -> {
        ResourceStore.ListResult result =
            store.list(type, path.namespace(), selector(exchange), listOptions(exchange));
        listedObjects.add(result.items().size());
        exchange.sendJson(200, shape.list(type, result, includeObject, tables));
      }
      case "watch" -> watch(exchange, path, shape, includeObject, pump);
      case "create" -> {
        StoredObject created =
            store.create(type, path.namespace(), Json.parseObject(exchange.body()), dryRun);
        exchange.sendJson(201, ResponseShape.full(created, type));
      }
      case "update" -> {
        ObjectNode body = Json.parseObject(exchange.body());
        if ("scale".equals(path.subresource())) {
          StoredObject updated =
              store.modify(
                  type,
                  path.namespace(),
                  path.name(),
                  null,
                  current -> ScaleSubresource.applyScale(type, current, body),
                  dryRun);
          exchange.sendJson(200, ScaleSubresource.toScale(type, updated.tree()));
        } else {
          StoredObject updated =
              store.replace(type, path.namespace(), path.name(), path.subresource(), body, dryRun);
          exchange.sendJson(200, ResponseShape.full(updated, type));
        }
      }
      case "patch" -> patch(exchange, path, dryRun);
      case "delete" -> {
        byte[] body = exchange.body();
        ObjectNode options = body.length == 0 ? null : Json.parseObject(body);
        StoredObject deleted = store.delete(type, path.namespace(), path.name(), options, dryRun);
        exchange.sendJson(200, ResponseShape.full(deleted, type));
      }
      case "deletecollection" -> {
        List<StoredObject> deleted =
            store.deleteCollection(type, path.namespace(), selector(exchange), dryRun);
        ObjectNode list = Json.object();
        list.put("apiVersion", type.apiVersion());
        list.put("kind", type.listKind());
        list.putObject("metadata")
            .put("resourceVersion", String.valueOf(store.currentResourceVersion()));
        ArrayNode items = list.putArray("items");
        deleted.forEach(object -> items.add(ResponseShape.full(object, type)));
        exchange.sendJson(200, list);
      }
      default -> throw ApiError.methodNotAllowed();
    }
  }

  /** PodMetrics and NodeMetrics: get and list only, computed now, never paged. */
  private void metrics(
      ApiExchange exchange, ResourcePath path, String verb, ResponseShape shape, String include)
      throws IOException {
    ResourceType type = path.type();
    switch (verb) {
      case "get" ->
          exchange.sendJson(
              200,
              shape.single(
                  metrics.get(type, path.namespace(), path.name()), type, include, tables));
      case "list" -> {
        List<ObjectNode> items = metrics.list(type, path.namespace(), selector(exchange));
        listedObjects.add(items.size());
        exchange.sendJson(200, shape.list(type, items, Json.object(), include, tables));
      }
      default -> throw ApiError.methodNotAllowed();
    }
  }

  /** Objects returned by list requests so far, every page counted. */
  long listedObjects() {
    return listedObjects.sum();
  }

  private void patch(ApiExchange exchange, ResourcePath path, boolean dryRun) throws IOException {
    ResourceType type = path.type();
    Patches.Kind kind = Patches.kindOf(exchange.header("Content-Type"));
    byte[] body = exchange.body();
    if ("scale".equals(path.subresource())) {
      if (kind == Patches.Kind.APPLY) {
        throw ApiError.unsupportedMediaType(exchange.header("Content-Type"));
      }
      StoredObject updated =
          store.modify(
              type,
              path.namespace(),
              path.name(),
              null,
              current -> {
                ObjectNode scale =
                    Patches.apply(kind, ScaleSubresource.toScale(type, current), body);
                return ScaleSubresource.applyScale(type, current, scale);
              },
              dryRun);
      exchange.sendJson(200, ScaleSubresource.toScale(type, updated.tree()));
      return;
    }
    StoredObject patched;
    if (kind == Patches.Kind.APPLY) {
      String fieldManager = exchange.query("fieldManager");
      if (fieldManager == null || fieldManager.isEmpty()) {
        throw ApiError.badRequest(
            "PATCH, application/apply-patch+yaml requires fieldManager to be set");
      }
      ObjectNode applied = Json.parseYamlObject(body);
      String appliedName = Json.text(applied, "metadata.name");
      if (appliedName != null && !appliedName.equals(path.name())) {
        throw ApiError.badRequest(
            "the name of the object ("
                + appliedName
                + ") does not match the name on the URL ("
                + path.name()
                + ")");
      }
      Json.metadata(applied).put("name", path.name());
      if (path.subresource() != null) {
        patched =
            store.modify(
                type,
                path.namespace(),
                path.name(),
                path.subresource(),
                current -> StrategicMergePatch.apply(current, applied),
                dryRun);
      } else {
        // Server-side apply approximated as create-or-merge: no managedFields, no conflict
        // detection.
        patched =
            store.applyOrCreate(
                type,
                path.namespace(),
                path.name(),
                applied.deepCopy(),
                current -> StrategicMergePatch.apply(current, applied),
                dryRun);
      }
    } else {
      patched =
          store.modify(
              type,
              path.namespace(),
              path.name(),
              path.subresource(),
              current -> Patches.apply(kind, current, body),
              dryRun);
    }
    exchange.sendJson(200, ResponseShape.full(patched, type));
  }

  private void watch(
      ApiExchange exchange,
      ResourcePath path,
      ResponseShape shape,
      String includeObject,
      WatchPump pump)
      throws IOException {
    Selectors.Selector selector = selector(exchange);
    if (path.name() != null) {
      selector = selector.and(Selectors.nameIs(path.name()));
    }
    long timeoutSeconds = exchange.longQuery("timeoutSeconds");
    long timeoutMillis =
        timeoutSeconds > 0 ? timeoutSeconds * 1000 : defaultWatchTimeout.toMillis();
    boolean sendInitialEvents = exchange.flag("sendInitialEvents");
    WatchFilter filter = new WatchFilter(path.type(), path.namespace(), selector);
    ResourceStore.WatchStart start =
        store.watch(filter, exchange.query("resourceVersion"), sendInitialEvents);
    new WatchStream(
            exchange,
            path.type(),
            shape,
            includeObject,
            tables,
            timeoutMillis,
            exchange.flag("allowWatchBookmarks"),
            bookmarkInterval.toMillis(),
            sendInitialEvents)
        .start(start, pump);
  }

  private static Selectors.Selector selector(ApiExchange exchange) {
    return Selectors.parse(exchange.query("labelSelector"), exchange.query("fieldSelector"));
  }

  private static ResourceStore.ListOptions listOptions(ApiExchange exchange) {
    String query =
        nullToEmpty(exchange.query("labelSelector"))
            + "|"
            + nullToEmpty(exchange.query("fieldSelector"));
    return new ResourceStore.ListOptions(
        exchange.longQuery("limit"),
        exchange.query("continue"),
        exchange.query("resourceVersion"),
        exchange.query("resourceVersionMatch"),
        query);
  }

  private static String verbOf(String method, ResourcePath path, boolean watch) {
    boolean item = path.name() != null;
    return switch (method) {
      case "GET" -> watch ? "watch" : item ? "get" : "list";
      case "POST" -> item ? fail() : "create";
      case "PUT" -> item ? "update" : fail();
      case "PATCH" -> item ? "patch" : fail();
      case "DELETE" -> item ? "delete" : "deletecollection";
      default -> fail();
    };
  }

  private static String fail() {
    throw ApiError.methodNotAllowed();
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }
}
