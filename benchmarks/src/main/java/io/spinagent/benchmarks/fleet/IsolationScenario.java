package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.spinagent.testkit.kubernetes.KubernetesApiServer;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One sick cluster or agent must not harm the others: {@code healthy} accounts, each a cluster with
 * an API server of its own, on one agent with one more account whose cluster falls sick, and a
 * second agent whose one account floods it with changes, all streaming to one Clouddriver replica.
 * While the others' changes (20 a second in all) and tunnel requests (5 a second) are timed ({@link
 * IsolationProbes}), each sickness runs for a phase right after a healthy phase of the same length,
 * so that every ratio compares minutes next to each other:
 *
 * <ul>
 *   <li>the sick cluster's API server hangs (accepts connections, never answers), its watches ended
 *       so that the agent has to reconnect into it;
 *   <li>it answers every request after 3 s;
 *   <li>it answers every request with 500;
 *   <li>the other agent's cluster changes 1,000 objects a second, which its agent streams as fast
 *       as Clouddriver takes them. That cluster and its agent run at the lowest CPU priority
 *       ({@link FloodClusterMain}): in production they are on other machines, and on two cores they
 *       would take most of the CPU the measured accounts need, which measures the machine rather
 *       than Clouddriver's isolation; what Clouddriver and its database spend on the flood stays at
 *       normal priority.
 * </ul>
 *
 * The healthy accounts' figures in each sick phase divided by those of the healthy phase before it
 * are the ratios the issue aims at (at most 1.2).
 */
final class IsolationScenario {

  /** What goes wrong in a phase. */
  enum Sickness {
    HANG("the sick cluster's API server hangs"),
    SLOW("the sick cluster answers after 3 s"),
    ERRORS("the sick cluster answers 500"),
    FLOOD("another agent streams 1,000 changes/s");

    final String description;

    Sickness(String description) {
      this.description = description;
    }
  }

  static final String SICK = "iso-sick";
  static final String FLOOD = "iso-flood";
  private static final int FLOOD_OBJECTS = 200;
  private static final int FLOOD_RATE = 1_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FleetEnvironment environment;
  private final FleetDatabase database;
  private final int healthy;
  private final Duration phase;
  private final Path dir;

  IsolationScenario(
      FleetEnvironment environment, FleetDatabase database, int healthy, Duration phase) {
    this.environment = environment;
    this.database = database;
    this.healthy = healthy;
    this.phase = phase;
    this.dir = environment.work().resolve("isolation");
  }

  IsolationResult run() {
    IsolationResult result = new IsolationResult(healthy, phase);
    Map<String, KubernetesApiServer> clusters = new LinkedHashMap<>();
    try {
      for (int i = 1; i <= healthy; i++) {
        clusters.put(String.format("iso-%02d", i), cluster(0));
      }
      clusters.put(SICK, cluster(0));
      FleetDatabase.Scenario db = database.freshScenario("fleet_isolation");
      Path floodKubeconfig = dir.resolve(FLOOD + ".kubeconfig");
      try (ChildProcess floodCluster = startFloodCluster(floodKubeconfig);
          PluginReplica plugin = new PluginReplica("isolation", environment, db, false)) {
        plugin.start();
        Map<String, Path> first = new LinkedHashMap<>();
        clusters.forEach((name, cluster) -> first.put(name, kubeconfig(name, cluster)));
        Path firstConfig =
            AgentJar.writeConfig(
                dir.resolve("agent-a.yaml"),
                "isolation-a",
                plugin.grpcPort(),
                FleetEnvironment.freePort(),
                first);
        Path floodConfig =
            AgentJar.writeConfig(
                dir.resolve("agent-b.yaml"),
                "isolation-b",
                plugin.grpcPort(),
                FleetEnvironment.freePort(),
                Map.of(FLOOD, floodKubeconfig));
        try (ChildProcess agentA = AgentJar.start(environment, firstConfig, "isolation-agent-a");
            ChildProcess agentB =
                AgentJar.start(environment, floodConfig, "isolation-agent-b", List.of(), true)) {
          int accounts = clusters.size() + 1;
          if (!awaitActive(plugin, accounts)) {
            result.failure =
                "not all "
                    + accounts
                    + " accounts ACTIVE within "
                    + environment.options().activeTimeout().toSeconds()
                    + " s (see "
                    + agentA.log()
                    + ")";
            return result;
          }
          Map<String, KubernetesApiServer> measured = new LinkedHashMap<>(clusters);
          measured.remove(SICK);
          CpuUse cpu =
              new CpuUse()
                  .group("plugin", () -> List.of(plugin.process().pid()))
                  .group("database", CpuUse::databaseProcesses)
                  .group("agent", () -> List.of(agentA.pid()))
                  .group("the other agent", () -> List.of(agentB.pid()))
                  .group("its cluster", () -> List.of(floodCluster.pid()))
                  .group(
                      "API servers and probes (this JVM)",
                      () -> List.of(ProcessHandle.current().pid()));
          try (IsolationProbes probes =
              new IsolationProbes(db, measured, tunnelClients(db, measured.keySet()))) {
            probes.start();
            Sleep.of(Duration.ofSeconds(5));
            for (Sickness sickness : Sickness.values()) {
              CpuUse.Reading start = cpu.read();
              IsolationProbes.Figures before = probes.measure(phase);
              CpuUse.Reading healthyEnd = cpu.read();
              Runnable heal = fallSick(sickness, clusters.get(SICK), floodCluster, result);
              CpuUse.Reading sickStart = cpu.read();
              IsolationProbes.Figures during = probes.measure(phase);
              CpuUse.Reading sickEnd = cpu.read();
              heal.run();
              result.phases.add(
                  new IsolationResult.Phase(
                      sickness,
                      before,
                      during,
                      CpuUse.between(start, healthyEnd),
                      CpuUse.between(sickStart, sickEnd)));
              // The sick account reconnects before the next healthy phase starts.
              awaitActive(plugin, accounts);
            }
          }
        }
      }
    } finally {
      clusters.values().forEach(KubernetesApiServer::close);
    }
    return result;
  }

  /**
   * The flooding cluster ({@link FloodClusterMain}), at the lowest CPU priority like its agent: in
   * production neither shares Clouddriver's machine.
   */
  private ChildProcess startFloodCluster(Path kubeconfig) {
    List<String> command = new ArrayList<>();
    command.add(environment.hostJdk().java().toString());
    command.add("-cp");
    command.add(environment.benchmarkClasspath());
    command.add(FloodClusterMain.class.getName());
    command.add("--objects=" + FLOOD_OBJECTS);
    command.add("--kubeconfig=" + kubeconfig);
    ChildProcess cluster =
        ChildProcess.start(
            "flooding cluster",
            ChildProcess.atLowestPriority(command),
            environment.logs().resolve("isolation-flood-cluster.log"),
            environment.hostJdk().home());
    cluster.awaitLine(line -> line.equals("READY"), Duration.ofMinutes(1));
    return cluster;
  }

  /**
   * A cluster of its own (its own port and threads), with an application, a probe Service and
   * {@code floodObjects} Services to flood.
   */
  static KubernetesApiServer cluster(int floodObjects) {
    KubernetesApiServer cluster = KubernetesApiServer.builder().start();
    for (ObjectNode object : ClusterObjects.growth("shop", 20)) {
      cluster.createObject(object.toString());
    }
    cluster.createObject(IsolationProbes.service("probe"));
    for (int i = 0; i < floodObjects; i++) {
      cluster.createObject(IsolationProbes.service("flood-" + i));
    }
    return cluster;
  }

  private Path kubeconfig(String name, KubernetesApiServer cluster) {
    return cluster.kubeconfig().name(name).writeTo(dir.resolve(name + ".kubeconfig"));
  }

  /** Makes the phase's sickness happen; returns what ends it. */
  private static Runnable fallSick(
      Sickness sickness,
      KubernetesApiServer sick,
      ChildProcess floodCluster,
      IsolationResult result) {
    switch (sickness) {
      case HANG -> sick.faults().latency(Duration.ofHours(1));
      case SLOW -> sick.faults().latency(Duration.ofSeconds(3));
      case ERRORS -> sick.faults().failNext(Integer.MAX_VALUE, 500);
      case FLOOD -> {
        floodCluster.send("flood " + FLOOD_RATE);
        return () ->
            result.flood =
                floodCluster
                    .ask("stop", "STATS ", Duration.ofSeconds(30))
                    .substring("STATS ".length());
      }
    }
    // The agent has to reconnect into the fault: its open watches would not notice it.
    sick.closeAllWatches();
    return () -> {
      sick.faults().reset();
      // Ends the requests still held by the fault (and their connections).
      sick.restart();
    };
  }

  private boolean awaitActive(PluginReplica plugin, int accounts) {
    long deadline = System.nanoTime() + environment.options().activeTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      if (plugin.accounts("ACTIVE") >= accounts) {
        return true;
      }
      Sleep.of(Duration.ofMillis(250));
    }
    return false;
  }

  /** A client of the plugin's tunnel per account, from its Clouddriver account definition. */
  private static Map<String, ApiClient> tunnelClients(
      FleetDatabase.Scenario db, Iterable<String> accounts) {
    Map<String, ApiClient> clients = new LinkedHashMap<>();
    for (String account : accounts) {
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      String definition = db.accountDefinition(account).orElse(null);
      while (definition == null && System.nanoTime() < deadline) {
        Sleep.of(Duration.ofMillis(250));
        definition = db.accountDefinition(account).orElse(null);
      }
      if (definition == null) {
        throw new IllegalStateException("no Clouddriver account definition for " + account);
      }
      try {
        JsonNode body = JSON.readTree(definition);
        String kubeconfig = body.path("kubeconfigContents").asText();
        clients.put(
            account,
            ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(new StringReader(kubeconfig)))
                .setReadTimeout(Duration.ofSeconds(10))
                .build());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the tunnel kubeconfig of " + account, e);
      }
    }
    return clients;
  }
}
