package io.spinagent.sandbox;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.AgentRuntime;
import io.spinagent.sandbox.agent.SandboxAgent;
import io.spinagent.sandbox.cluster.DemoApplication;
import io.spinagent.sandbox.cluster.DemoController;
import io.spinagent.sandbox.cluster.DemoNodes;
import io.spinagent.sandbox.db.SandboxDatabase;
import io.spinagent.sandbox.host.ClouddriverProcess;
import io.spinagent.sandbox.host.StandInRequests;
import io.spinagent.sandbox.view.CacheTables;
import io.spinagent.sandbox.view.ChangeLatency;
import io.spinagent.sandbox.view.LiveView;
import io.spinagent.sandbox.view.ViewRenderer;
import io.spinagent.testkit.files.TemporaryDirectory;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import io.spinagent.testkit.tls.TestPki;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Everything the README's command starts, in order, and stops in reverse: the database, the
 * simulated cluster with its nodes, demo application and controller, Clouddriver with the plugin
 * (one replica, or two with high availability), the agent, and the live view of the cache. All
 * files (certificates, kubeconfigs, the plugins root) live in one temporary directory that {@link
 * #close()} deletes.
 */
public final class Sandbox implements AutoCloseable {

  public static final String PLUGIN_ID = "SpinAgent.Kubernetes";

  private final SandboxOptions options;
  private final PrintStream out;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private Path workDir;
  private SandboxDatabase database;
  private KubernetesApiServer cluster;
  private ClouddriverProcess clouddriver;
  private Optional<ClouddriverProcess> secondReplica = Optional.empty();
  private Path clusterKubeconfig;
  private Path tunnelKubeconfig;
  private Optional<Path> secondTunnelKubeconfig = Optional.empty();
  private Optional<Path> caCertificate = Optional.empty();
  private int grpcPort;
  private int agentAdminPort;
  private boolean closed;

  private Sandbox(SandboxOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Starts everything; on failure, stops what had started and rethrows. */
  public static Sandbox start(SandboxOptions options, Path bundle, PrintStream out) {
    Sandbox sandbox = new Sandbox(options, out);
    try {
      sandbox.startAll(bundle);
      return sandbox;
    } catch (RuntimeException | Error e) {
      sandbox.close();
      throw e;
    }
  }

  private void startAll(Path bundle) {
    long startedAt = System.nanoTime();
    workDir = createWorkDir();
    started.push(this::deleteWorkDir);

    step("Database");
    database =
        options
            .jdbcUrl()
            .map(url -> SandboxDatabase.external(url, options.dbUser(), options.dbPassword()))
            .orElseGet(SandboxDatabase::embedded);
    started.push(database);

    step("Simulated Kubernetes cluster");
    cluster = KubernetesApiServer.builder().port(options.kubernetesPort()).start();
    started.push(cluster);
    DemoNodes.seed(cluster);
    DemoApplication.seed(cluster);
    clusterKubeconfig =
        cluster.kubeconfig().name(options.account()).writeTo(workDir.resolve("cluster.kubeconfig"));
    started.push(
        DemoController.start(watchingClient(clusterKubeconfig), DemoApplication.NAMESPACE));

    step("Certificates");
    Map<String, Object> properties = new LinkedHashMap<>();
    if (!options.plaintext()) {
      TestPki pki = TestPki.create("SpinAgent sandbox CA");
      Path pkiDir = workDir.resolve("pki");
      TestPki.Issued.PemFiles plugin =
          pki.issueServer("spinagent-plugin").written(pkiDir, "plugin");
      caCertificate = Optional.of(pki.writeCaCertificate(pkiDir.resolve("ca.crt")));
      properties.put("spinagent.grpc.security.enabled", true);
      properties.put(
          "spinagent.grpc.security.certificate-chain", plugin.certificateChain().toString());
      properties.put("spinagent.grpc.security.private-key", plugin.privateKey().toString());
    }

    step("Clouddriver (Spinnaker " + options.line() + ") with the plugin");
    grpcPort = portOrFree(options.grpcPort());
    properties.put("server.port", options.clouddriverPort());
    properties.put("spinnaker.extensibility.plugins." + PLUGIN_ID + ".enabled", true);
    properties.put("spinagent.grpc.address", "127.0.0.1");
    properties.put("spinagent.grpc.port", grpcPort);
    properties.put("spinagent.tunnel.port", options.tunnelPort());
    if (options.replicas() > 1) {
      // Every replica forwards to the one holding the agent's stream, over loopback, with a
      // secret only they share.
      properties.put("spinagent.ha.shared-secret", randomSecret());
      properties.put("spinagent.ha.address", "127.0.0.1");
      properties.put("spinagent.ha.advertise-address", "127.0.0.1");
      properties.put("spinagent.ha.port", 0);
    }
    if (this.database.jdbcUrl().startsWith("jdbc:mariadb:")) {
      // As a MariaDB user configures Clouddriver: jOOQ's MySQL dialect writes MySQL 8's upserts
      // from Spinnaker 2026.2 on, which MariaDB cannot read.
      properties.put("sql.connectionPools.default.dialect", "MARIADB");
    }
    // The sandbox stops Clouddriver itself, after the agent, so its goodbye is not a lost
    // connection.
    clouddriver =
        ClouddriverProcess.start(
            options.line(),
            bundle,
            Optional.of(database.connection()),
            properties,
            workDir.resolve("clouddriver.log"));
    started.push(clouddriver);
    if (options.replicas() > 1) {
      step("Clouddriver replica 2, forwarding to the first");
      Map<String, Object> second = new LinkedHashMap<>(properties);
      second.put("server.port", 0);
      // No agent connects to it: its agent port is merely taken.
      second.put("spinagent.grpc.port", 0);
      second.put("spinagent.tunnel.port", 0);
      ClouddriverProcess replica =
          ClouddriverProcess.start(
              options.line(),
              bundle,
              Optional.of(database.connection()),
              second,
              workDir.resolve("clouddriver-2.log"));
      started.push(replica);
      secondReplica = Optional.of(replica);
    }

    step("Agent");
    agentAdminPort = portOrFree(options.agentAdminPort());
    AgentRuntime agent =
        SandboxAgent.start(
            workDir, options.account(), clusterKubeconfig, grpcPort, caCertificate, agentAdminPort);
    started.push(agent);

    tunnelKubeconfig = writeTunnelKubeconfig(clouddriver, "tunnel.kubeconfig");
    secondTunnelKubeconfig =
        secondReplica.map(replica -> writeTunnelKubeconfig(replica, "tunnel-2.kubeconfig"));
    printWhereEverythingIs(Duration.ofNanos(System.nanoTime() - startedAt));
    started.push(
        LiveView.start(
            new CacheTables(database.jooq()),
            new ViewRenderer(options.color()),
            new ChangeLatency(clouddriver),
            out,
            options.refresh()));
  }

  /** The kubeconfig a Clouddriver replica is given for the account: its plugin's tunnel. */
  private Path writeTunnelKubeconfig(ClouddriverProcess replica, String name) {
    Path file = workDir.resolve(name);
    try {
      return Files.writeString(
          file, StandInRequests.get(replica, "/standin/tunnel-kubeconfig/" + options.account()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  private static String randomSecret() {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }

  private void printWhereEverythingIs(Duration took) {
    String clouddriverUrl = clouddriver.url();
    String database =
        this.database.isEmbedded()
            ? "embedded PostgreSQL  "
                + this.database.jdbcUrl()
                + "  (user postgres, password postgres)"
            : this.database.jdbcUrl();
    String tunnelKubeconfigText;
    try {
      tunnelKubeconfigText = Files.readString(tunnelKubeconfig).indent(4);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.printf(
        """

SpinAgent sandbox is running (started in %.1f s). Ctrl-C stops everything.

  Database              %s
  Clouddriver           %s   (Spinnaker %s stand-in, log %s; plugin %s: %s/spinagent/info)
%s  Agent gRPC port       127.0.0.1:%d  (%s)
  Kubernetes tunnel     %s
  Simulated cluster     %s  (demo application '%s' in namespace %s)
  Agent                 %s, account '%s', status %s

Cluster kubeconfig: %s
  Change the cluster and watch the cache view below follow, e.g.:
    kubectl --kubeconfig %s scale deployment %s --replicas=4
    kubectl --kubeconfig %s delete pod -l app=%s
    kubectl --kubeconfig %s set image deployment/%s web=nginx:1.28

Tunnel kubeconfig: %s
  kubectl "as Clouddriver": through the plugin's tunnel, the agent's stream and the agent's credentials:
    kubectl --kubeconfig %s get deployments,replicasets,pods
    kubectl --kubeconfig %s scale deployment %s --replicas=1
%s%s
""",
        took.toMillis() / 1000.0,
        database,
        clouddriverUrl,
        options.line(),
        clouddriver.log(),
        PLUGIN_ID,
        clouddriverUrl,
        secondReplica
            .map(
                replica ->
                    "  Clouddriver replica 2 %s   (log %s; forwards to the first, which holds the agent's stream)%n"
                        .formatted(replica.url(), replica.log()))
            .orElse(""),
        grpcPort,
        options.plaintext() ? "plaintext" : "TLS, CA " + workDir.resolve("pki/ca.crt"),
        kubeconfigServer(),
        cluster.url(),
        DemoApplication.APPLICATION,
        DemoApplication.NAMESPACE,
        SandboxAgent.AGENT_ID,
        options.account(),
        "http://127.0.0.1:" + agentAdminPort + "/health",
        clusterKubeconfig,
        clusterKubeconfig,
        DemoApplication.DEPLOYMENT,
        clusterKubeconfig,
        DemoApplication.APPLICATION,
        clusterKubeconfig,
        DemoApplication.DEPLOYMENT,
        tunnelKubeconfig,
        tunnelKubeconfig,
        tunnelKubeconfig,
        DemoApplication.DEPLOYMENT,
        tunnelKubeconfigText,
        secondTunnelKubeconfig
            .map(
                file ->
                    """

Tunnel kubeconfig of replica 2: %1$s
  The same account through the second replica, which forwards to the first:
    kubectl --kubeconfig %1$s get pods
"""
                        .formatted(file))
            .orElse(""));
    out.flush();
  }

  private String kubeconfigServer() {
    try (Stream<String> lines = Files.lines(tunnelKubeconfig)) {
      return lines
          .map(String::trim)
          .filter(l -> l.startsWith("server:"))
          .map(l -> l.substring("server:".length()).trim().replace("'", ""))
          .findFirst()
          .orElse("?");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void step(String what) {
    out.println("Starting: " + what);
    out.flush();
  }

  public Path clusterKubeconfig() {
    return clusterKubeconfig;
  }

  public Path tunnelKubeconfig() {
    return tunnelKubeconfig;
  }

  public SandboxDatabase database() {
    return database;
  }

  public KubernetesApiServer cluster() {
    return cluster;
  }

  public ClouddriverProcess clouddriver() {
    return clouddriver;
  }

  /** The second Clouddriver replica, with {@code --replicas 2}. */
  public Optional<ClouddriverProcess> secondReplica() {
    return secondReplica;
  }

  /** The account's kubeconfig through the second replica's tunnel, with {@code --replicas 2}. */
  public Optional<Path> secondTunnelKubeconfig() {
    return secondTunnelKubeconfig;
  }

  /** The CA that signed the plugin's gRPC certificate; empty with {@code --plaintext}. */
  public Optional<Path> caCertificate() {
    return caCertificate;
  }

  /** The plugin's port for agents. */
  public int grpcPort() {
    return grpcPort;
  }

  /** The agent's admin port: {@code /health}, {@code /accounts}, {@code /metrics}. */
  public int agentAdminPort() {
    return agentAdminPort;
  }

  /** Stops everything started, newest first; safe to call twice. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        if (failure == null) {
          failure =
              new IllegalStateException("The sandbox did not stop cleanly: " + e.getMessage(), e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * An official-client ApiClient for the cluster, without a read timeout so that watches stay open.
   */
  private static ApiClient watchingClient(Path kubeconfig) {
    try (Reader reader = Files.newBufferedReader(kubeconfig)) {
      return ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(reader))
          .setReadTimeout(Duration.ZERO)
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + kubeconfig, e);
    }
  }

  private static int portOrFree(int port) {
    if (port != 0) {
      return port;
    }
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port", e);
    }
  }

  private static Path createWorkDir() {
    try {
      return Files.createTempDirectory("spinagent-sandbox-");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the sandbox's temporary directory", e);
    }
  }

  private void deleteWorkDir() {
    TemporaryDirectory.delete(workDir, "the sandbox's temporary directory");
  }
}
