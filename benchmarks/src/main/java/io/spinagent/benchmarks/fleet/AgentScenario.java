package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * One agent with {@code accounts} accounts (infrastructure mode: a kubeconfig each), every account
 * a cluster of {@link ClusterObjects#clusterSize()} objects on one {@link ClusterFleetMain}
 * process, streaming to one Clouddriver replica; and, against the same clusters, the baseline of
 * plain client-java informers. Each runs in a JVM of its own, measured from outside (see {@link
 * AgentResult}).
 */
final class AgentScenario {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Before exiting is reported as not done (the issue's own limit). */
  static final Duration EXIT_LIMIT = Duration.ofMinutes(2);

  private final FleetEnvironment environment;
  private final FleetDatabase database;
  private final int accounts;
  private final Path dir;

  AgentScenario(FleetEnvironment environment, FleetDatabase database, int accounts) {
    this.environment = environment;
    this.database = database;
    this.accounts = accounts;
    this.dir = environment.work().resolve("agent-" + accounts);
  }

  AgentResult run() {
    AgentResult result = new AgentResult(accounts, ClusterObjects.clusterSize());
    result.agentJdk = environment.agentJdk().toString();
    try (ChildProcess clusters = startClusters();
        ProcessSampler clusterSampler = new ProcessSampler(clusters, Integer.MAX_VALUE)) {
      result.clustersStarted = clusters.status();
      baseline(clusters, result);
      // The baseline's watches would linger until the servers next wrote to them.
      clusters.ask("close-watches", "STATS closed", Duration.ofSeconds(30));
      FleetDatabase.Scenario db = database.freshScenario("fleet_agent_" + accounts);
      try (PluginReplica plugin = new PluginReplica("agent" + accounts, environment, db, false)) {
        plugin.start();
        idleAgent(plugin, result);
        agent(clusters, plugin, db, result);
      }
      result.clustersPeakThreads = clusterSampler.peakThreads();
    }
    return result;
  }

  private ChildProcess startClusters() {
    List<String> command = new ArrayList<>();
    command.add(environment.clustersJdk().java().toString());
    // About 6 MB a cluster (110 objects with their JSON trees, history and discovery documents).
    command.add("-Xmx" + Math.max(1024, accounts * 8) + "m");
    command.add("-cp");
    command.add(environment.benchmarkClasspath());
    command.add(ClusterFleetMain.class.getName());
    command.add("--clusters=" + accounts);
    command.add("--dir=" + dir.resolve("kubeconfigs"));
    ChildProcess clusters =
        ChildProcess.start(
            "test API servers",
            command,
            environment.logs().resolve("clusters-" + accounts + ".log"),
            environment.clustersJdk().home());
    clusters.awaitLine(line -> line.startsWith("READY"), Duration.ofMinutes(10));
    return clusters;
  }

  private void baseline(ChildProcess clusters, AgentResult result) {
    List<String> command = new ArrayList<>();
    command.add(environment.agentJdk().java().toString());
    command.add("-Xmx" + environment.options().agentHeap());
    command.addAll(AgentJar.SHIPPED_HEAP_OPTIONS);
    command.add("-cp");
    command.add(environment.benchmarkClasspath());
    command.add(InformerBaselineMain.class.getName());
    command.add("--dir=" + dir.resolve("kubeconfigs"));
    command.add("--accounts=" + accounts);
    try (ChildProcess informers =
        ChildProcess.start(
            "informer baseline",
            command,
            environment.logs().resolve("baseline-" + accounts + ".log"),
            environment.agentJdk().home())) {
      informers.awaitLine(line -> line.equals("READY idle"), Duration.ofMinutes(1));
      result.baselineIdle = measure(informers);
      try (ProcessSampler sampler =
          new ProcessSampler(informers, environment.options().threadGuard())) {
        CpuUse cpu =
            new CpuUse()
                .group("informers", () -> List.of(informers.pid()))
                .group("API servers", () -> List.of(clusters.pid()));
        CpuUse.Reading cpuAtStart = cpu.read();
        informers.send("start");
        try {
          String synced =
              informers.awaitLine(
                  line -> line.startsWith("READY synced"), environment.options().activeTimeout());
          result.baselineSyncMillis = Long.parseLong(synced.split(" ", 0)[2]);
          result.baselineCpu = CpuUse.spent(cpuAtStart, cpu.read());
          result.baseline = measure(informers);
          result.watchesWithBaseline = stats(clusters).watches();
          if (growth() > 0) {
            long before = baselineObjects(informers);
            int added = grow(clusters, result);
            await(
                () -> baselineObjects(informers) >= before + (long) accounts * added,
                "the baseline informers to hold the added objects");
            result.baselineGrown = measure(informers, "-grown");
            clusters.ask("shrink", "STATS shrunk", Duration.ofMinutes(10));
          }
        } catch (IllegalStateException e) {
          result.baselineFailure =
              sampler.guardTripped()
                  ? "stopped at the thread guard (" + sampler.peakThreads() + " threads)"
                  : e.getMessage();
        }
        result.baselinePeakThreads = sampler.peakThreads();
        result.baselinePeakRss = sampler.peakRss();
      }
    }
  }

  /** The agent with no accounts: its fixed threads and heap. */
  private void idleAgent(PluginReplica plugin, AgentResult result) {
    int adminPort = FleetEnvironment.freePort();
    Path config = writeConfig("agent-idle.yaml", plugin, 0, adminPort);
    try (ChildProcess agent = startAgent(config, "agent-idle-" + accounts)) {
      AgentJar.awaitHealth(agent, adminPort);
      result.agentIdle = measure(agent);
      agent.terminate(EXIT_LIMIT);
    }
  }

  private void agent(
      ChildProcess clusters, PluginReplica plugin, FleetDatabase.Scenario db, AgentResult result) {
    int adminPort = FleetEnvironment.freePort();
    Path config = writeConfig("agent.yaml", plugin, accounts, adminPort);
    ChildProcess agent = startAgent(config, "agent-" + accounts);
    try (ProcessSampler sampler = new ProcessSampler(agent, environment.options().threadGuard())) {
      CpuUse cpu =
          new CpuUse()
              .group("agent", () -> List.of(agent.pid()))
              .group("API servers", () -> List.of(clusters.pid()))
              .group("plugin", () -> List.of(plugin.process().pid()))
              .group("database", CpuUse::databaseProcesses);
      CpuUse.Reading cpuAtStart = cpu.read();
      long start = System.nanoTime();
      Optional<Duration> active = awaitActive(plugin, agent, sampler, start);
      result.agentCpu = CpuUse.spent(cpuAtStart, cpu.read());
      result.agentPeakThreads = sampler.peakThreads();
      result.agentPeakRss = sampler.peakRss();
      if (active.isEmpty()) {
        result.agentFailure = failure(agent, sampler, plugin);
        agent.kill();
        return;
      }
      result.allActive = active.get();
      Sleep.of(Duration.ofSeconds(5));
      result.agent = measure(agent);
      if (growth() > 0) {
        long before = agentObjects(adminPort);
        int added = grow(clusters, result);
        await(
            () -> agentObjects(adminPort) >= before + (long) accounts * added,
            "the agent to hold the added objects");
        Sleep.of(Duration.ofSeconds(5));
        result.agentGrown = measure(agent, "-grown");
        clusters.ask("shrink", "STATS shrunk", Duration.ofMinutes(10));
        await(() -> agentObjects(adminPort) <= before, "the agent to drop the added objects");
      }
      result.definitions = db.accountDefinitions();
      result.watchesWithAgent = stats(clusters).watches();
      result.clustersWithAgent = clusters.status();
      result.exit = agent.terminate(EXIT_LIMIT);
    }
    if (!environment.options().restarts()) {
      return;
    }
    // Agent restart: the same configuration again, the clusters unchanged.
    awaitFewerActive(plugin);
    clusters.ask("close-watches", "STATS closed", Duration.ofSeconds(30));
    long listedBefore = stats(clusters).listed();
    long restartedAt = System.currentTimeMillis();
    ChildProcess again = startAgent(config, "agent-" + accounts + "-restarted");
    try (ProcessSampler sampler = new ProcessSampler(again, environment.options().threadGuard())) {
      Optional<Duration> active = awaitActive(plugin, again, sampler, System.nanoTime());
      if (active.isEmpty()) {
        result.restartFailure = failure(again, sampler, plugin);
        again.kill();
        return;
      }
      result.restartActive = active.get();
      Sleep.of(Duration.ofSeconds(5));
      result.relisted = stats(clusters).listed() - listedBefore;
      result.rewritten = db.cacheRows(restartedAt);
      result.secondExit = again.terminate(EXIT_LIMIT);
    }
  }

  private String failure(ChildProcess agent, ProcessSampler sampler, PluginReplica plugin) {
    if (sampler.guardTripped()) {
      return "stopped at the thread guard ("
          + String.format("%,d", sampler.peakThreads())
          + " threads), "
          + Math.max(0, plugin.accounts("ACTIVE"))
          + " accounts ACTIVE by then";
    }
    if (!agent.isAlive()) {
      return "the agent ended (see " + agent.log() + ")";
    }
    return "not all ACTIVE within "
        + environment.options().activeTimeout().toSeconds()
        + " s: "
        + Math.max(0, plugin.accounts("ACTIVE"))
        + " of "
        + accounts;
  }

  private Optional<Duration> awaitActive(
      PluginReplica plugin, ChildProcess agent, ProcessSampler sampler, long start) {
    long deadline = start + environment.options().activeTimeout().toNanos();
    while (System.nanoTime() < deadline && agent.isAlive() && !sampler.guardTripped()) {
      if (plugin.accounts("ACTIVE") >= accounts) {
        return Optional.of(Duration.ofNanos(System.nanoTime() - start));
      }
      Sleep.of(Duration.ofMillis(250));
    }
    return Optional.empty();
  }

  /** After the agent left, its accounts stop being ACTIVE (ORPHANED) once the plugin notices. */
  private void awaitFewerActive(PluginReplica plugin) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline && plugin.accounts("ACTIVE") >= accounts) {
      Sleep.of(Duration.ofMillis(250));
    }
  }

  private ChildProcess startAgent(Path config, String name) {
    return AgentJar.start(environment, config, name);
  }

  private Path writeConfig(String file, PluginReplica plugin, int count, int adminPort) {
    Map<String, Path> kubeconfigs = new LinkedHashMap<>();
    for (int i = 1; i <= count; i++) {
      String name = ClusterFleetMain.accountName(i);
      kubeconfigs.put(name, ClusterFleetMain.kubeconfig(dir.resolve("kubeconfigs"), name));
    }
    return AgentJar.writeConfig(
        dir.resolve(file), "fleet-bench-agent", plugin.grpcPort(), adminPort, kubeconfigs);
  }

  /** Threads and memory now, and the heap after two full GCs. */
  private AgentResult.Sample measure(ChildProcess process) {
    return measure(process, "");
  }

  /**
   * @param suffix tells this measurement's class histogram from the same process's others
   */
  private AgentResult.Sample measure(ChildProcess process, String suffix) {
    long heap = process.heapAfterFullGc();
    process.writeClassHistogram(
        environment.logs().resolve(process.name().replace(' ', '-') + suffix + ".histogram.txt"));
    return new AgentResult.Sample(process.status(), heap);
  }

  private int growth() {
    return environment.options().growth();
  }

  /** Adds the growth to every cluster; the objects added per cluster. */
  private int grow(ChildProcess clusters, AgentResult result) {
    String grown = clusters.ask("grow " + growth(), "STATS grown=", Duration.ofMinutes(10));
    int added = Integer.parseInt(grown.substring("STATS grown=".length()).trim());
    result.grownObjects = (long) accounts * added;
    return added;
  }

  private static long baselineObjects(ChildProcess informers) {
    String line = informers.ask("objects", "STATS objects=", Duration.ofSeconds(30));
    return Long.parseLong(line.substring("STATS objects=".length()).trim());
  }

  /** The objects the agent knows of, over all its accounts ({@code /accounts}). */
  private static long agentObjects(int adminPort) {
    try {
      long objects = 0;
      for (JsonNode account : JSON.readTree(AgentJar.accounts(adminPort)).path("accounts")) {
        objects += account.path("objects").asLong();
      }
      return objects;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Sleep.of(Duration.ofMillis(500));
    }
  }

  /** What the test API servers served: watches open now, objects listed so far. */
  record ClusterStats(int watches, long listed) {}

  private static ClusterStats stats(ChildProcess clusters) {
    String line = clusters.ask("stats", "STATS", Duration.ofSeconds(30));
    int watches = 0;
    long listed = 0;
    for (String field : line.split(" ", 0)) {
      if (field.startsWith("watches=")) {
        watches = Integer.parseInt(field.substring("watches=".length()));
      } else if (field.startsWith("listed=")) {
        listed = Long.parseLong(field.substring("listed=".length()));
      }
    }
    return new ClusterStats(watches, listed);
  }
}
