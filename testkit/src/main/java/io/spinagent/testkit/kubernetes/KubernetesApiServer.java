package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.spinagent.testkit.tls.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * An in-process Kubernetes API server for tests: fabric8's CRUD store behind our own HTTP front end
 * (the JDK's {@code com.sun.net.httpserver}), speaking what the official Java client and kubectl
 * rely on: CRUD with conflicts, a global resourceVersion, selectors, consistent pagination, watches
 * with history and 410 Expired, bookmarks, discovery including CRDs, OpenAPI v3 for kubectl,
 * metadata-only responses, server-side tables with the columns a real server prints, the resource
 * metrics API that {@code kubectl top} reads, SelfSubjectAccessReview, bearer tokens with 401/403,
 * and HTTPS with a generated CA.
 *
 * <p>The JDK server was chosen over Netty or okhttp's MockWebServer because it adds no dependency
 * that could clash with the agent's own (client-java brings okhttp 4, fabric8's mock server okhttp
 * 3), it does chunked streaming and TLS, and it can be stopped and started again on the same port
 * while the store, the event history and the certificates stay, which is how tests exercise "API
 * server restarted".
 *
 * <pre>{@code
 * try (KubernetesApiServer server = KubernetesApiServer.builder().start()) {
 *   Path kubeconfig = server.kubeconfig().writeTempFile();
 *   ApiClient client = Config.fromConfig(kubeconfig.toString());
 *   ...
 * }
 * }</pre>
 */
public final class KubernetesApiServer implements AutoCloseable {

  private final Builder options;
  private final ResourceTypeRegistry registry;
  private final WatchHub hub;
  private final ResourceStore store;
  private final AccessControl accessControl = new AccessControl();
  private final FaultInjector faults = new FaultInjector();
  private final RequestLog requestLog = new RequestLog();
  private final PodLogs podLogs = new PodLogs();
  private final TestPki certificates;
  private final TestPki.Issued servingCertificate;
  private final ResourceRequestHandler resources;
  private final ApiRequestRouter router;
  private ApiListener listener;
  private volatile int boundPort;

  /** Set when a {@link KubernetesApiFleet} serves this cluster. */
  private volatile Mount mount;

  /** Where a cluster of a fleet is served: the fleet's listener, under the cluster's name. */
  record Mount(KubernetesApiFleet fleet, String name) {}

  private KubernetesApiServer(Builder options) {
    this.options = options;
    this.registry = new ResourceTypeRegistry(options.metricsApi);
    this.hub = new WatchHub(options.eventHistoryLimit);
    this.store = new ResourceStore(registry, hub, options.requireNamespaces, options.clock);
    this.certificates = options.https ? TestPki.create("spinagent-testkit Kubernetes CA") : null;
    this.servingCertificate =
        options.https ? certificates.issueServer("kube-apiserver", options.host) : null;
    this.resources =
        new ResourceRequestHandler(
            store,
            accessControl,
            options.defaultWatchTimeout,
            options.bookmarkInterval,
            podLogs,
            new ServerSideTables(options.clock),
            new ResourceMetrics(store, registry, options.clock));
    this.router =
        new ApiRequestRouter(
            registry,
            resources,
            accessControl,
            faults,
            requestLog,
            options.gitVersion,
            () -> host() + ":" + port(),
            options.aggregatedDiscovery);
    this.boundPort = options.port;
    for (String namespace : options.initialNamespaces) {
      createObject(
          "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
              + namespace
              + "\"}}");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts listening; on the configured port, or on a random free one the first time if that was 0.
   *
   * @throws IllegalStateException for a cluster of a {@link KubernetesApiFleet}, which the fleet's
   *     listener serves
   */
  public synchronized KubernetesApiServer start() {
    if (mount != null) {
      throw new IllegalStateException(
          "cluster '" + mount.name() + "' is served by its fleet at " + mount.fleet().url());
    }
    if (listener != null) {
      return this;
    }
    listener =
        ApiListener.start(
            options.host,
            boundPort,
            certificates == null ? null : servingCertificate.serverContext(),
            "kube-api-test-server",
            options.watchStallTimeout,
            (exchange, pump) -> router.serve(exchange, "", pump));
    boundPort = listener.port();
    return this;
  }

  /**
   * Stops listening and ends all watches; the store and its history are kept for {@link #start()}.
   */
  public synchronized void stop() {
    if (listener == null) {
      return;
    }
    listener.stop(hub::closeAll);
    listener = null;
  }

  /** Lets {@code fleet} serve this cluster under {@code name}; its own listener never starts. */
  synchronized void mountIn(KubernetesApiFleet fleet, String name) {
    if (listener != null) {
      throw new IllegalStateException("a cluster with a listener of its own cannot join a fleet");
    }
    mount = new Mount(fleet, name);
  }

  /** Serves one request the fleet's listener received for this cluster. */
  void serve(HttpExchange exchange, String pathPrefix, WatchPump pump) throws IOException {
    router.serve(exchange, pathPrefix, pump);
  }

  /** Ends every watch of this cluster (its listener is stopping). */
  void closeWatches() {
    hub.closeAll();
  }

  /** Stop, then start again on the same port, keeping objects, history and certificates. */
  public synchronized KubernetesApiServer restart() {
    stop();
    return start();
  }

  @Override
  public void close() {
    stop();
  }

  /** Whether it is listening (for a cluster of a fleet: whether the fleet is). */
  public synchronized boolean isRunning() {
    return mount != null ? mount.fleet().isRunning() : listener != null;
  }

  public String host() {
    return mount != null ? mount.fleet().host() : options.host;
  }

  public int port() {
    return mount != null ? mount.fleet().port() : boundPort;
  }

  public boolean isHttps() {
    return mount != null ? mount.fleet().isHttps() : certificates != null;
  }

  /**
   * Base URL, e.g. {@code https://127.0.0.1:41234}; for a cluster of a fleet with its path, e.g.
   * {@code https://127.0.0.1:41234/clusters/prod}.
   */
  public String url() {
    if (mount != null) {
      return mount.fleet().url() + KubernetesApiFleet.pathOf(mount.name());
    }
    return (isHttps() ? "https://" : "http://") + options.host + ":" + port();
  }

  /** PEM of the CA that signed the serving certificate; null for plain HTTP. */
  public String caCertificatePem() {
    TestPki pki = certificates();
    return pki == null ? null : pki.caCertificatePem();
  }

  /** The generated certificates; null for plain HTTP. */
  public TestPki certificates() {
    return mount != null ? mount.fleet().certificates() : certificates;
  }

  public String gitVersion() {
    return options.gitVersion;
  }

  public ResourceStore store() {
    return store;
  }

  public ResourceTypeRegistry registry() {
    return registry;
  }

  public AccessControl accessControl() {
    return accessControl;
  }

  public FaultInjector faults() {
    return faults;
  }

  /** The containers' logs that {@code pods/<name>/log} serves; tests append lines to them. */
  public PodLogs podLogs() {
    return podLogs;
  }

  /** The requests answered so far (the last few thousand). */
  public RequestLog requestLog() {
    return requestLog;
  }

  /** The store's current (global) resourceVersion. */
  public long resourceVersion() {
    return store.currentResourceVersion();
  }

  /** Forgets the event history up to now: watches and continue tokens from before now get 410. */
  public void compact() {
    store.compact();
  }

  /**
   * Watch streams currently open. A client that simply went away is noticed at the next event or
   * bookmark written to it, so this may briefly count watches whose client is already gone.
   */
  public int activeWatches() {
    return hub.activeWatches();
  }

  /** Objects returned by list requests so far (every page counted): what clients listed. */
  public long listedObjects() {
    return resources.listedObjects();
  }

  /**
   * Ends every open watch stream cleanly, as a real server does when a watch's timeout expires;
   * clients then watch again from the last resourceVersion they saw (after {@link #compact()}: and
   * get 410).
   */
  public void closeAllWatches() {
    hub.closeAll();
  }

  /** A kubeconfig writer preset with this server's URL and CA. */
  public KubeconfigWriter kubeconfig() {
    return KubeconfigWriter.forServer(this);
  }

  // ---------------------------------------------------------------------------------------------
  // Direct access for test setup: same store, same events, no HTTP.

  /** Creates an object from a JSON or YAML manifest; namespaced objects default to "default". */
  public String createObject(String manifest) {
    ObjectNode object = Json.parseYamlObject(manifest.getBytes(StandardCharsets.UTF_8));
    ResourceType type = typeOf(object);
    String namespace =
        type.namespaced() ? Json.metadata(object).path("namespace").asText("default") : null;
    return Json.write(ResponseShape.full(store.create(type, namespace, object, false), type));
  }

  /** Replaces an object with the given manifest (a resourceVersion in it is a precondition). */
  public String replaceObject(String manifest) {
    ObjectNode object = Json.parseYamlObject(manifest.getBytes(StandardCharsets.UTF_8));
    ResourceType type = typeOf(object);
    String namespace =
        type.namespaced() ? Json.metadata(object).path("namespace").asText("default") : null;
    String name = Json.text(object, "metadata.name");
    return Json.write(
        ResponseShape.full(store.replace(type, namespace, name, null, object, false), type));
  }

  /** Applies a JSON merge patch (RFC 7386) to an object. */
  public String mergePatchObject(
      String apiVersion, String kind, String namespace, String name, String patch) {
    return mergePatch(apiVersion, kind, namespace, name, null, patch);
  }

  /**
   * Applies a JSON merge patch to an object's status subresource, as a controller or kubelet writes
   * it (writes of the object itself leave status alone on kinds that have the subresource).
   */
  public String mergePatchStatus(
      String apiVersion, String kind, String namespace, String name, String patch) {
    return mergePatch(apiVersion, kind, namespace, name, "status", patch);
  }

  private String mergePatch(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      String subresource,
      String patch) {
    ResourceType type = type(apiVersion, kind);
    byte[] body = patch.getBytes(StandardCharsets.UTF_8);
    return Json.write(
        ResponseShape.full(
            store.modify(
                type,
                namespace,
                name,
                subresource,
                current -> Patches.apply(Patches.Kind.MERGE, current, body),
                false),
            type));
  }

  public Optional<String> getObject(String apiVersion, String kind, String namespace, String name) {
    ResourceType type = type(apiVersion, kind);
    try {
      return Optional.of(Json.write(ResponseShape.full(store.get(type, namespace, name), type)));
    } catch (ApiError e) {
      if (e.code() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  public void deleteObject(String apiVersion, String kind, String namespace, String name) {
    store.delete(type(apiVersion, kind), namespace, name, null, false);
  }

  private ResourceType typeOf(ObjectNode object) {
    return type(object.path("apiVersion").asText(""), object.path("kind").asText(""));
  }

  private ResourceType type(String apiVersion, String kind) {
    return registry
        .findByKind(apiVersion, kind)
        .orElseThrow(
            () ->
                new ApiError(
                    404,
                    "NotFound",
                    "no resource of kind " + kind + " is served at " + apiVersion));
  }

  /** Options; every one has a default that suits most tests. */
  public static final class Builder {
    private boolean https = true;
    private String host = "127.0.0.1";
    private int port;
    private String gitVersion = "v1.29.4";
    private int eventHistoryLimit = 10_000;
    private Duration bookmarkInterval = Duration.ofSeconds(60);
    private Duration defaultWatchTimeout = Duration.ofMinutes(30);
    private Duration watchStallTimeout = Duration.ofSeconds(10);
    private boolean requireNamespaces = true;
    private boolean aggregatedDiscovery = true;
    private boolean metricsApi = true;
    private Clock clock = Clock.systemUTC();
    private List<String> initialNamespaces =
        List.of("default", "kube-system", "kube-public", "kube-node-lease");

    private Builder() {}

    /** HTTPS with a generated CA (the default) or plain HTTP. */
    public Builder https(boolean https) {
      this.https = https;
      return this;
    }

    public Builder http() {
      return https(false);
    }

    /** Address to listen on; 127.0.0.1 by default. */
    public Builder host(String host) {
      this.host = host;
      return this;
    }

    /** Port to listen on; 0 (the default) picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** What /version reports, e.g. v1.29.4. */
    public Builder gitVersion(String gitVersion) {
      this.gitVersion = gitVersion;
      return this;
    }

    /** How many changes the watch history keeps; older resourceVersions get 410 Expired. */
    public Builder eventHistoryLimit(int events) {
      this.eventHistoryLimit = events;
      return this;
    }

    /** How often watches that allow bookmarks get one (a real server: about a minute). */
    public Builder bookmarkInterval(Duration interval) {
      this.bookmarkInterval = interval;
      return this;
    }

    /** How long a watch without timeoutSeconds stays open. */
    public Builder defaultWatchTimeout(Duration timeout) {
      this.defaultWatchTimeout = timeout;
      return this;
    }

    /**
     * How long one write to a watch's client may block (the client does not read) before the watch
     * is ended; 10 s by default.
     */
    public Builder watchStallTimeout(Duration timeout) {
      this.watchStallTimeout = timeout;
      return this;
    }

    /**
     * Whether namespaced objects need their namespace to exist first (true, as on a real server).
     */
    public Builder requireNamespaces(boolean require) {
      this.requireNamespaces = require;
      return this;
    }

    /**
     * Whether /api and /apis answer with aggregated discovery to clients that ask for it (true, as
     * API servers since 1.27 do); false serves only the legacy per-group documents, as older
     * servers do.
     */
    public Builder aggregatedDiscovery(boolean served) {
      this.aggregatedDiscovery = served;
      return this;
    }

    /**
     * Whether the resource metrics API ({@code metrics.k8s.io/v1beta1}, what {@code kubectl top}
     * reads) is served, as in a cluster with metrics-server (true, the default); false serves none,
     * as in a cluster without a metrics server ({@code kubectl top}: "Metrics API not available").
     */
    public Builder metricsApi(boolean served) {
      this.metricsApi = served;
      return this;
    }

    /**
     * The server's time: objects' creationTimestamp and deletionTimestamp, the ages and durations
     * of server-side tables, the timestamps of metrics. The system clock by default; a test that
     * compares kubectl's output exactly steps a clock of its own.
     */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * Namespaces that exist from the start (default, kube-system, kube-public, kube-node-lease).
     */
    public Builder initialNamespaces(List<String> namespaces) {
      this.initialNamespaces = List.copyOf(namespaces);
      return this;
    }

    public KubernetesApiServer build() {
      return new KubernetesApiServer(this);
    }

    public KubernetesApiServer start() {
      return build().start();
    }
  }
}
