package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.testkit.net.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One real agent of the fault soak ({@code java -jar spinagent-agent.jar}) with its accounts,
 * connected to a Clouddriver replica through a {@link TcpProxy} — the network the soak cuts,
 * stalls, or points at the other replica, as a load balancer would — and what the soak reads from
 * its {@code /metrics} (changes not yet acknowledged) and its {@code /accounts} (each account's
 * state).
 */
final class SoakAgent implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Pattern OUTBOX =
      Pattern.compile("(?m)^spinagent_agent_outbox_entries(?:\\{[^}]*\\})? ([0-9.eE+-]+)$");

  private final String id;
  private final FleetEnvironment environment;
  private final List<SoakCluster> clusters;
  private final TcpProxy proxy;
  private final int adminPort;
  private final Path config;
  private final List<String> jvmOptions;
  private PluginReplica replica;
  private ChildProcess process;
  private int starts;

  /**
   * @param jvmOptions more options for the agent's JVM ({@link SoakTrace#agentJvmOptions})
   */
  SoakAgent(
      String id,
      FleetEnvironment environment,
      List<SoakCluster> clusters,
      PluginReplica replica,
      List<String> jvmOptions) {
    this.id = id;
    this.environment = environment;
    this.jvmOptions = List.copyOf(jvmOptions);
    this.clusters = List.copyOf(clusters);
    this.replica = replica;
    this.proxy = TcpProxy.start("127.0.0.1", replica.grpcPort());
    this.adminPort = FleetEnvironment.freePort();
    this.config = writeConfig();
  }

  String id() {
    return id;
  }

  List<SoakCluster> clusters() {
    return clusters;
  }

  /** The replica new connections go to. */
  PluginReplica replica() {
    return replica;
  }

  void start() {
    starts++;
    process = AgentJar.start(environment, config, "agent-" + id + "-" + starts, jvmOptions, false);
  }

  /** {@code kill -9}. */
  void kill() {
    process.kill();
  }

  boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** Resets its connection to Clouddriver (both sides see RST). */
  void cutConnection() {
    proxy.cut();
  }

  /** Stops forwarding bytes on its connection without closing it. */
  void stallConnection() {
    proxy.stall();
  }

  void resumeConnection() {
    proxy.resume();
  }

  /** Sends its next connections to {@code other} (open ones keep theirs). */
  void pointAt(PluginReplica other) {
    this.replica = other;
    proxy.retarget("127.0.0.1", other.grpcPort());
  }

  /**
   * Outbox entries (changes not yet acknowledged) from {@code /metrics}; null when it does not
   * answer.
   */
  Health health() {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return null;
      }
      return new Health((int) value(OUTBOX, response.body()).orElse(-1));
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The objects the agent holds of each of its accounts ({@code /accounts}), by account; empty when
   * it does not answer.
   */
  Map<String, Long> objectsByAccount() {
    Map<String, Long> objects = new TreeMap<>();
    try {
      for (JsonNode account : JSON.readTree(AgentJar.accounts(adminPort)).path("accounts")) {
        objects.put(account.path("name").asText(), account.path("objects").asLong());
      }
    } catch (IOException | RuntimeException e) {
      // not answering: nothing to tell
    }
    return objects;
  }

  /**
   * The state of every account the agent holds ({@code /accounts}: READY, STANDBY, REFUSED, …), by
   * name; null when it does not answer.
   */
  Map<String, String> accountStates() {
    Map<String, String> states = new TreeMap<>();
    try {
      for (JsonNode account : JSON.readTree(AgentJar.accounts(adminPort)).path("accounts")) {
        states.put(account.path("name").asText(), account.path("state").asText());
      }
      return states;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** What the agent's metrics say: changes not yet acknowledged. */
  record Health(int unacknowledged) {}

  Path log() {
    return process.log();
  }

  @Override
  public void close() {
    if (process != null) {
      process.close();
    }
    proxy.close();
  }

  private static OptionalDouble value(Pattern pattern, String metrics) {
    Matcher m = pattern.matcher(metrics);
    return m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
  }

  private Path writeConfig() {
    StringBuilder yaml = new StringBuilder();
    yaml.append("agent:\n  id: ").append(id).append('\n');
    yaml.append("clouddriver:\n  grpc: ").append(proxy.address()).append('\n');
    yaml.append("  insecure: true\n");
    // A stalled connection is noticed within seconds, and a replica that comes back is found soon.
    yaml.append("  keepAliveHeartbeatSeconds: 5\n  keepAliveTimeoutSeconds: 5\n");
    yaml.append("  backoff:\n    baseDelay: 500ms\n    maxDelay: 5s\n");
    yaml.append("server:\n  port: ").append(adminPort).append('\n');
    yaml.append("kubernetes:\n  accounts:\n");
    for (SoakCluster cluster : clusters) {
      yaml.append("    - name: ").append(cluster.account()).append('\n');
      yaml.append("      kubeconfigFile: ")
          .append(cluster.kubeconfig().toAbsolutePath())
          .append('\n');
    }
    try {
      Path dir = environment.work().resolve("agents");
      Files.createDirectories(dir);
      return Files.writeString(dir.resolve(id + ".yaml"), yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
