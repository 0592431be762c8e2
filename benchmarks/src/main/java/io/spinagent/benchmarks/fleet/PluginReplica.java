package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One Clouddriver replica with the plugin (the Clouddriver stand-in's {@code
 * ClouddriverStandInMain}) as the benchmark drives it: on fixed ports, so that it can be stopped
 * and started again where agents reconnect, and asked over the plugin's REST API how many accounts
 * are ACTIVE.
 */
final class PluginReplica implements AutoCloseable {

  /** The stand-in's main class, on the stand-in's class path (not on the benchmark's). */
  private static final String STAND_IN_MAIN = "io.spinagent.standin.ClouddriverStandInMain";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String name;
  private final FleetEnvironment environment;
  private final FleetDatabase.Scenario database;
  private final int httpPort;
  private final int grpcPort;
  private final int tunnelPort;
  private final int haPort;
  private final boolean ha;
  private final Map<String, String> properties;
  private ChildProcess process;
  private int starts;

  PluginReplica(
      String name, FleetEnvironment environment, FleetDatabase.Scenario database, boolean ha) {
    this(name, environment, database, ha, Map.of());
  }

  /**
   * @param properties settings of this replica (system properties), besides every replica's ({@code
   *     -Dbenchmark.fleet.pluginProperties})
   */
  PluginReplica(
      String name,
      FleetEnvironment environment,
      FleetDatabase.Scenario database,
      boolean ha,
      Map<String, String> properties) {
    this.name = name;
    this.properties = Map.copyOf(properties);
    this.environment = environment;
    this.database = database;
    this.ha = ha;
    this.httpPort = FleetEnvironment.freePort();
    this.grpcPort = FleetEnvironment.freePort();
    this.tunnelPort = FleetEnvironment.freePort();
    this.haPort = FleetEnvironment.freePort();
  }

  String name() {
    return name;
  }

  int grpcPort() {
    return grpcPort;
  }

  /** Starts the replica's process and waits until Clouddriver has started. */
  PluginReplica start() {
    starts++;
    List<String> command = new ArrayList<>();
    command.add(environment.hostJdk().java().toString());
    command.add("-Xmx" + environment.options().pluginHeap());
    command.add("-XX:+ExitOnOutOfMemoryError");
    // System properties outrank the host's defaults in Spring's environment.
    environment.options().pluginProperties().forEach((k, v) -> command.add("-D" + k + "=" + v));
    properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
    command.add("-cp");
    command.add(environment.hostClasspath());
    command.add(STAND_IN_MAIN);
    command.add("--standin.bundle=" + environment.bundle());
    command.add("--standin.jdbc-url=" + database.jdbcUrl());
    command.add("--standin.db-user=" + database.user());
    command.add("--standin.db-password=" + database.password());
    if (database.jdbcUrl().startsWith("jdbc:mariadb:")) {
      // As MariaDB users configure Clouddriver from Spinnaker 2026.2 (jOOQ 3.19) on.
      command.add("--sql.connectionPools.default.dialect=MARIADB");
    }
    // The plugin's own log lines (connections, accounts) at INFO; everything else at WARN.
    command.add("--logging.level.root=WARN");
    command.add("--logging.level.io.spinagent=INFO");
    command.add("--server.port=" + httpPort);
    command.add("--spinnaker.extensibility.plugins.SpinAgent.Kubernetes.enabled=true");
    command.add("--account.storage.enabled=true");
    command.add("--account.storage.kubernetes.enabled=true");
    command.add("--spinagent.grpc.address=127.0.0.1");
    command.add("--spinagent.grpc.port=" + grpcPort);
    command.add("--spinagent.tunnel.port=" + tunnelPort);
    if (ha) {
      command.add("--spinagent.ha.shared-secret=fleet-benchmark");
      command.add("--spinagent.ha.address=127.0.0.1");
      command.add("--spinagent.ha.advertise-address=127.0.0.1");
      command.add("--spinagent.ha.port=" + haPort);
    }
    Path log = environment.logs().resolve("plugin-" + name + "-" + starts + ".log");
    process = ChildProcess.start("plugin " + name, command, log, environment.hostJdk().home());
    process.awaitLine(line -> line.startsWith("READY"), Duration.ofMinutes(3));
    return this;
  }

  ChildProcess process() {
    return process;
  }

  /** SIGTERM; how long the replica took to exit, empty if it had not after {@code limit}. */
  Optional<Duration> stop(Duration limit) {
    return process.terminate(limit);
  }

  /**
   * Accounts in {@code state} as this replica's API reports them ({@code GET
   * /spinagent/accounts?state=...}: its own accounts live, the other replicas' from the shared
   * table); -1 when the replica does not answer.
   */
  int accounts(String state) {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:"
                        + httpPort
                        + "/spinagent/accounts?state="
                        + state
                        + "&size=1"))
            .timeout(Duration.ofSeconds(30))
            .build();
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return -1;
      }
      JsonNode page = JSON.readTree(response.body());
      return page.path("total").asInt(-1);
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Where this replica's HTTP port (Clouddriver's 7002) serves {@code path}. */
  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + httpPort + path);
  }

  /**
   * The state of every account this replica's API lists ({@code GET /spinagent/accounts}: every
   * state but REMOVED), by name; null when the replica does not answer.
   */
  Map<String, String> accountStates() {
    Map<String, String> states = new TreeMap<>();
    try {
      for (int page = 0; ; page++) {
        HttpResponse<String> response =
            HTTP.send(
                HttpRequest.newBuilder(uri("/spinagent/accounts?size=500&page=" + page))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
          return null;
        }
        JsonNode body = JSON.readTree(response.body());
        for (JsonNode account : body.path("accounts")) {
          states.put(account.path("name").asText(), account.path("state").asText());
        }
        if (body.path("accounts").size() < 500 || states.size() >= body.path("total").asInt()) {
          return states;
        }
      }
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return "replica " + name;
  }

  @Override
  public void close() {
    if (process != null) {
      process.close();
    }
  }
}
