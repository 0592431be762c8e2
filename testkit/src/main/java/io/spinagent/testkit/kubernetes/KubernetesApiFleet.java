package io.spinagent.testkit.kubernetes;

import com.sun.net.httpserver.HttpExchange;
import io.spinagent.testkit.tls.TestPki;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Many simulated clusters behind one listener, each under its own path: cluster {@code prod} is
 * {@code https://127.0.0.1:<port>/clusters/prod}, the way a Rancher-style proxy presents many
 * clusters on one host. Each cluster is a full {@link KubernetesApiServer} (its own objects,
 * resourceVersions, watches, tokens and faults) whose requests arrive through the fleet; their
 * kubeconfigs carry the path, and the official client and kubectl use it as any server URL.
 *
 * <p>For benchmarks that need hundreds of clusters: one port, one certificate and one set of
 * threads serve them all, and the watches of every cluster share one {@link WatchPump}.
 *
 * <pre>{@code
 * try (KubernetesApiFleet fleet = KubernetesApiFleet.builder().start()) {
 *   KubernetesApiServer prod = fleet.addCluster("prod");
 *   prod.createObject(...);
 *   Path kubeconfig = prod.kubeconfig().writeTempFile();
 * }
 * }</pre>
 */
public final class KubernetesApiFleet implements AutoCloseable {

  /** Cluster names: what a URL path segment and a kubeconfig entry take without escaping. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private static final String PREFIX = "/clusters/";

  private final Builder options;
  private final TestPki certificates;
  private final TestPki.Issued servingCertificate;
  private final Map<String, KubernetesApiServer> clusters = new ConcurrentHashMap<>();
  private ApiListener listener;
  private volatile int boundPort;

  private KubernetesApiFleet(Builder options) {
    this.options = options;
    this.certificates = options.https ? TestPki.create("spinagent-testkit fleet CA") : null;
    this.servingCertificate =
        options.https ? certificates.issueServer("kube-apiserver", options.host) : null;
    this.boundPort = options.port;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The path of cluster {@code name} on the fleet's listener. */
  static String pathOf(String name) {
    return PREFIX + name;
  }

  /**
   * Adds a cluster served under {@code name}, with the default options of {@link
   * KubernetesApiServer#builder()}.
   */
  public KubernetesApiServer addCluster(String name) {
    return addCluster(name, builder -> {});
  }

  /**
   * Adds a cluster served under {@code name}; {@code options} adjusts its builder (history size,
   * bookmarks, namespaces, ...). Listener settings (port, TLS) are the fleet's and ignored.
   *
   * @throws IllegalArgumentException when the name is taken or not a lower-case DNS label
   */
  public KubernetesApiServer addCluster(
      String name, Consumer<KubernetesApiServer.Builder> options) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "cluster name '" + name + "' is not a lower-case DNS label (a-z, 0-9, '-')");
    }
    KubernetesApiServer.Builder builder = KubernetesApiServer.builder();
    options.accept(builder);
    // The fleet's listener does TLS; a cluster of its own would only generate keys for nothing.
    KubernetesApiServer cluster = builder.http().build();
    cluster.mountIn(this, name);
    if (clusters.putIfAbsent(name, cluster) != null) {
      throw new IllegalArgumentException("the fleet already has a cluster named '" + name + "'");
    }
    return cluster;
  }

  /** The clusters, by name. */
  public Map<String, KubernetesApiServer> clusters() {
    return Map.copyOf(clusters);
  }

  /** Starts listening; on the configured port, or on a random free one if that was 0. */
  public synchronized KubernetesApiFleet start() {
    if (listener == null) {
      listener =
          ApiListener.start(
              options.host,
              boundPort,
              servingCertificate == null ? null : servingCertificate.serverContext(),
              "kube-api-test-fleet",
              options.watchStallTimeout,
              this::route);
      boundPort = listener.port();
    }
    return this;
  }

  /** Stops listening and ends every cluster's watches; clusters and objects are kept. */
  public synchronized void stop() {
    if (listener != null) {
      listener.stop(() -> clusters.values().forEach(KubernetesApiServer::closeWatches));
      listener = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  public synchronized boolean isRunning() {
    return listener != null;
  }

  public String host() {
    return options.host;
  }

  public int port() {
    return boundPort;
  }

  public boolean isHttps() {
    return certificates != null;
  }

  /** The listener's URL, e.g. {@code https://127.0.0.1:41234}; clusters are below it. */
  public String url() {
    return (isHttps() ? "https://" : "http://") + options.host + ":" + port();
  }

  /** The certificates of the listener; null for plain HTTP. */
  public TestPki certificates() {
    return certificates;
  }

  /** Watch streams open across all clusters. */
  public int activeWatches() {
    return clusters.values().stream().mapToInt(KubernetesApiServer::activeWatches).sum();
  }

  /** Objects returned by list requests across all clusters so far. */
  public long listedObjects() {
    return clusters.values().stream().mapToLong(KubernetesApiServer::listedObjects).sum();
  }

  private void route(HttpExchange exchange, WatchPump pump) throws IOException {
    String path = exchange.getRequestURI().getRawPath();
    if (path.startsWith(PREFIX)) {
      int end = path.indexOf('/', PREFIX.length());
      String name = path.substring(PREFIX.length(), end < 0 ? path.length() : end);
      KubernetesApiServer cluster = clusters.get(name);
      if (cluster != null) {
        cluster.serve(exchange, PREFIX + name, pump);
        return;
      }
    }
    notFound(exchange, path);
  }

  private void notFound(HttpExchange exchange, String path) throws IOException {
    ApiError error =
        new ApiError(
            404,
            "NotFound",
            "no cluster is served at "
                + path
                + "; the fleet serves "
                + List.copyOf(clusters.keySet()).stream().sorted().limit(5).toList()
                + (clusters.size() > 5 ? " and " + (clusters.size() - 5) + " more" : "")
                + " under "
                + PREFIX);
    byte[] body = Json.bytes(error.toStatus());
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(404, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Listener options; clusters take theirs in {@link #addCluster(String, Consumer)}. */
  public static final class Builder {
    private boolean https = true;
    private String host = "127.0.0.1";
    private int port;
    private Duration watchStallTimeout = Duration.ofSeconds(10);

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

    /** See {@link KubernetesApiServer.Builder#watchStallTimeout}. */
    public Builder watchStallTimeout(Duration timeout) {
      this.watchStallTimeout = timeout;
      return this;
    }

    public KubernetesApiFleet build() {
      return new KubernetesApiFleet(this);
    }

    public KubernetesApiFleet start() {
      return build().start();
    }
  }
}
