package io.spinagent.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.spinagent.agent.AgentRuntime;
import io.spinagent.agent.config.AccountPermissions;
import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.AgentIdentityConfig;
import io.spinagent.agent.config.AuthConfig;
import io.spinagent.agent.config.BackoffConfig;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.GrpcTarget;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.KubernetesConfig;
import io.spinagent.agent.config.LoggingConfig;
import io.spinagent.agent.config.OutboxConfig;
import io.spinagent.agent.config.PrometheusConfig;
import io.spinagent.agent.config.ServerConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.config.TlsConfig;
import io.spinagent.agent.config.binding.ConfigLoader;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.AgentWelcomeListener;
import io.spinagent.plugin.cache.DiscardingSink;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.AgentChannel;
import io.spinagent.plugin.grpc.ChannelParts;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.tunnel.OperationsProperties;
import io.spinagent.plugin.tunnel.TunnelHttpServer;
import io.spinagent.plugin.tunnel.TunnelProperties;
import io.spinagent.plugin.tunnel.TunnelTokens;
import io.spinagent.testkit.files.TemporaryDirectory;
import io.spinagent.testkit.kubernetes.KubeconfigWriter;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Latency of {@code kubectl get deployment frontend -o json} through the tunnel (plugin tunnel →
 * agent session → agent → testkit API server) against the same command sent straight to the test
 * server, measured twice:
 *
 * <ul>
 *   <li>the real {@code kubectl} process, as Clouddriver runs it (one process per command, a
 *       kubeconfig file, discovery cached in a cache directory per side): what an operation waits;
 *   <li>the request alone, sent by the Java HTTP client as kubectl sends it (GET, Accept JSON,
 *       bearer token, a keep-alive connection over TLS): the tunnel's own cost per request.
 * </ul>
 *
 * Both sides alternate in rounds after a warm-up, and p50/p99 of each with their ratio are
 * reported. Run: {@code ./mvnw -q -pl benchmarks -am -DskipTests verify -Pbenchmark} (or this
 * class's main with the number of requests and of kubectl runs per side).
 */
public final class TunnelLatencyBenchmark {

  private static final String PATH = "/apis/apps/v1/namespaces/default/deployments/frontend";
  private static final int ROUNDS = 10;

  private TunnelLatencyBenchmark() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    int kubectlRuns = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    Path dir = Files.createTempDirectory("spinagent-tunnel-benchmark");
    SpinAgentProperties properties = new SpinAgentProperties();
    properties.getGrpc().setAddress("127.0.0.1");
    properties.getGrpc().setPort(0);
    AccountRegistry accounts =
        new AccountRegistry(Clock.systemUTC(), properties.getAccounts().getGracePeriod());
    SessionRegistry sessions = new SessionRegistry();
    TunnelTokens tokens = new TunnelTokens();
    TunnelProperties tunnelProperties = new TunnelProperties();
    tunnelProperties.setPort(0);
    try (KubernetesApiServer cluster = KubernetesApiServer.builder().start();
        AgentChannel channel =
            AgentChannel.startOnAgentPort(
                new ChannelParts(
                    properties,
                    "benchmark-replica",
                    accounts,
                    AgentWelcomeListener.NONE,
                    sessions,
                    new DiscardingSink(),
                    ResumePoints.NONE,
                    new SimpleMeterRegistry(),
                    Clock.systemUTC()));
        TunnelHttpServer tunnel =
            TunnelHttpServer.start(
                tunnelProperties, new OperationsProperties(), tokens, accounts, sessions);
        AgentRuntime agent = startAgent(dir, cluster, channel.port())) {
      cluster.createObject(
          "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"frontend\","
              + "\"namespace\":\"default\",\"labels\":{\"app\":\"shop\"}},\"spec\":{\"replicas\":2,\"selector\":"
              + "{\"matchLabels\":{\"app\":\"shop\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"shop\"}},"
              + "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.27\"}]}}}}");
      awaitActive(accounts, "prod");

      String tunnelToken = tokens.issue("prod");
      HttpSide direct =
          new HttpSide(
              "direct to the API server",
              client(cluster.caCertificatePem()),
              URI.create(cluster.url() + PATH),
              "agent-token");
      HttpSide tunneled =
          new HttpSide(
              "through the tunnel and agent",
              client(tunnel.caCertificatePem()),
              URI.create(tunnel.clusterUrl("prod") + PATH),
              tunnelToken);
      Optional<String> kubectl = kubectlOnPath();
      if (kubectl.isPresent() && kubectlRuns > 0) {
        KubectlSide kubectlDirect =
            new KubectlSide(
                kubectl.get(),
                dir,
                "direct",
                cluster.kubeconfig().token("agent-token").writeTo(dir.resolve("direct.yaml")));
        KubectlSide kubectlTunneled =
            new KubectlSide(
                kubectl.get(),
                dir,
                "tunnel",
                new KubeconfigWriter(tunnel.clusterUrl("prod"), tunnel.caCertificatePem())
                    .token(tunnelToken)
                    .writeTo(dir.resolve("tunnel.yaml")));
        compare(
            "kubectl get deployment frontend -o json (the kubectl process, as Clouddriver runs it)",
            kubectlDirect,
            kubectlTunneled,
            Math.max(5, kubectlRuns / 10),
            kubectlRuns);
      } else {
        System.out.println(
            "\n"
                + "kubectl is not on the PATH (or 0 runs were asked for): the kubectl figure is"
                + " left out");
      }
      compare(
          "GET " + PATH + " (the request kubectl sends, alone)",
          direct,
          tunneled,
          Math.max(200, requests / 5),
          requests);
    } finally {
      TemporaryDirectory.delete(dir, "the benchmark's temporary directory");
    }
  }

  private static AgentRuntime startAgent(Path dir, KubernetesApiServer cluster, int pluginPort)
      throws Exception {
    cluster.accessControl().acceptToken("agent-token");
    Path kubeconfig =
        cluster.kubeconfig().token("agent-token").writeTo(dir.resolve("agent-kubeconfig.yaml"));
    KubernetesAccountConfig account =
        new KubernetesAccountConfig(
            "prod",
            Optional.of(kubeconfig),
            false,
            Optional.empty(),
            List.of(),
            List.of(),
            List.of("Deployment"),
            List.of(),
            false,
            false,
            AccountPermissions.UNRESTRICTED,
            Duration.ofMinutes(5));
    ClouddriverConfig clouddriver =
        new ClouddriverConfig(
            new GrpcTarget("127.0.0.1", pluginPort),
            true,
            new TlsConfig(
                Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
            new AuthConfig(Optional.empty(), Optional.empty()),
            10,
            5,
            new BackoffConfig(Duration.ofMillis(100), 1.6, 0.2, Duration.ofSeconds(2)),
            new OutboxConfig(64L << 20));
    AgentConfig config =
        new AgentConfig(
            new AgentIdentityConfig("benchmark-agent", Optional.empty()),
            clouddriver,
            new KubernetesConfig(List.of(account)),
            new ServerConfig(freePort()),
            new PrometheusConfig(false, 8008),
            LoggingConfig.DEFAULT,
            new TasksConfig(
                TasksConfig.DEFAULT_TOTAL_BUDGET, TasksConfig.DEFAULT_BUDGET_PER_ACCOUNT),
            AgentConfig.DEFAULT_TIMEOUT_SECONDS);
    // The runtime watches this file for changes; the configuration itself is built above.
    Path configFile =
        Files.writeString(dir.resolve("spinagent.yaml"), "# built in code by the benchmark\n");
    return AgentRuntime.start(configFile, config, new ConfigLoader(() -> "benchmark-agent"));
  }

  private static void awaitActive(AccountRegistry accounts, String account)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (accounts.find(account).map(AgentAccount::state).orElse(null) != AccountState.ACTIVE) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "account '" + account + "' did not become ACTIVE within 60s");
      }
      Thread.sleep(50);
    }
  }

  /**
   * Warms both sides up, then alternates them in rounds and prints both sides' percentiles and
   * ratios.
   */
  private static void compare(String title, Side direct, Side tunneled, int warmUp, int count)
      throws Exception {
    direct.run(warmUp, false);
    tunneled.run(warmUp, false);
    int perRound = Math.max(1, count / ROUNDS);
    for (int round = 0; round < ROUNDS; round++) {
      direct.run(perRound, true);
      tunneled.run(perRound, true);
    }
    System.out.printf(
        "%n%s: %,d per side in %d alternating rounds%n", title, direct.latencies.size(), ROUNDS);
    System.out.printf("%-10s %16s %16s %8s%n", "", "direct", "tunnel", "ratio");
    for (double percentile : new double[] {50, 99}) {
      double d = direct.percentile(percentile);
      double t = tunneled.percentile(percentile);
      System.out.printf("%-10s %13.3f ms %13.3f ms %8.2f%n", "p" + (int) percentile, d, t, t / d);
    }
    System.out.printf("%-10s %16d %16d%n", "timed out", direct.timedOut, tunneled.timedOut);
  }

  private static Optional<String> kubectlOnPath() {
    return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
        .map(directory -> Path.of(directory, "kubectl"))
        .filter(Files::isExecutable)
        .map(Path::toString)
        .findFirst();
  }

  private static HttpClient client(String caPem) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    int i = 0;
    for (Certificate certificate :
        CertificateFactory.getInstance("X.509")
            .generateCertificates(
                new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)))) {
      trust.setCertificateEntry("ca-" + i++, certificate);
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, factory.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1).build();
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** One way of reaching the cluster, and the latencies it measured. */
  private abstract static class Side {

    final List<Long> latencies = new ArrayList<>();
    int timedOut;

    abstract void run(int count, boolean record) throws Exception;

    double percentile(double percentile) {
      long[] sorted = latencies.stream().mapToLong(Long::longValue).toArray();
      Arrays.sort(sorted);
      int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1_000_000.0;
    }
  }

  /**
   * The kubectl process with a kubeconfig, as Clouddriver runs it. Each side has its own cache
   * directory, so discovery is fetched once in the warm-up and then read from disk, as on a
   * Clouddriver host that has run kubectl before.
   */
  private static final class KubectlSide extends Side {

    final List<String> command;

    KubectlSide(String kubectl, Path dir, String name, Path kubeconfig) {
      this.command =
          List.of(
              kubectl,
              "--kubeconfig=" + kubeconfig,
              "--cache-dir=" + dir.resolve("cache-" + name),
              "--request-timeout=10s",
              "get",
              "deployment",
              "frontend",
              "-o",
              "json");
    }

    @Override
    void run(int count, boolean record) throws Exception {
      for (int i = 0; i < count; i++) {
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        int exit = process.waitFor();
        long elapsed = System.nanoTime() - start;
        if (exit != 0) {
          throw new IllegalStateException(
              String.join(" ", command)
                  + " exited with "
                  + exit
                  + ": "
                  + new String(output, StandardCharsets.UTF_8));
        }
        if (record) {
          latencies.add(elapsed);
        }
      }
    }
  }

  /** The request kubectl sends, by the Java HTTP client on a keep-alive connection. */
  private static final class HttpSide extends Side {

    final String name;
    final HttpClient http;
    final HttpRequest request;

    HttpSide(String name, HttpClient http, URI uri, String token) {
      this.name = name;
      this.http = http;
      // kubectl's --request-timeout, so that a request lost by a server shows as such instead of
      // hanging.
      this.request =
          HttpRequest.newBuilder(uri)
              .timeout(Duration.ofSeconds(10))
              .header("Accept", "application/json")
              .header("Authorization", "Bearer " + token)
              .GET()
              .build();
    }

    @Override
    void run(int count, boolean record) throws Exception {
      for (int i = 0; i < count; i++) {
        long start = System.nanoTime();
        HttpResponse<byte[]> response;
        try {
          response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
          timedOut++;
          continue;
        }
        long elapsed = System.nanoTime() - start;
        if (response.statusCode() != 200) {
          throw new IllegalStateException(
              name
                  + ": "
                  + request.uri()
                  + " answered "
                  + response.statusCode()
                  + ": "
                  + new String(response.body(), StandardCharsets.UTF_8));
        }
        if (record) {
          latencies.add(elapsed);
        }
      }
    }
  }
}
