package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Fleet scale (issue 17): one agent with hundreds of accounts, and one plugin with a thousand
 * agents, each measured as separate processes from outside, beside a baseline from the same run.
 *
 * <ul>
 *   <li><b>One agent, N accounts</b> ({@link AgentScenario}): the real agent ({@code java -jar
 *       spinagent-agent.jar}) with N accounts, each a cluster of 110 objects on a test API server
 *       process, streaming to a Clouddriver replica with the plugin. Threads, RSS, heap after a
 *       full GC, time until every account is ACTIVE, SIGTERM's time to exit, and a restart of the
 *       agent. Baseline: plain client-java informers over the same clusters and kinds.
 *   <li><b>One plugin, M agents</b> ({@link PluginScenario}): M simulated agents speaking the real
 *       protocol to a Clouddriver replica with the plugin, one account of 20 objects each. Time
 *       until all ACTIVE and until all Clouddriver account definitions are written, the plugin's
 *       threads and RSS, change latency idle and at one change per agent per second. Baseline: one
 *       account sending the same total rate. Then a restart of the replica, and a rolling restart
 *       of two replicas on one database.
 *   <li><b>Isolation</b> (issue 20, {@link IsolationScenario}): healthy accounts beside a cluster
 *       that hangs, is slow or fails, and beside another agent flooding the plugin; the healthy
 *       accounts' change → row and tunnel latency against a healthy phase of the same run.
 * </ul>
 *
 * <p>Linux only (threads and memory come from {@code /proc}). Run: {@code ./mvnw -q -pl benchmarks
 * -am -DskipTests verify -Pbenchmark -Dbenchmark.agentSync.skip -Dbenchmark.sql.skip
 * -Dbenchmark.tunnel.skip}; see docs/benchmarks.md for the options.
 */
public final class FleetBenchmark {

  private FleetBenchmark() {}

  public static void main(String[] args) {
    FleetOptions options = FleetOptions.parse(args);
    FleetEnvironment environment = new FleetEnvironment(options);
    FleetReport report = new FleetReport(System.out);
    System.out.printf(
        "%nFleet benchmark: %d cores, %.1f GB memory; load %s%n",
        Runtime.getRuntime().availableProcessors(), memoryGigabytes(), load());
    System.out.printf("  agent and informer baseline: %s%n", environment.agentJdk());
    System.out.printf("  their test API servers: %s%n", environment.clustersJdk());
    System.out.printf("  Clouddriver stand-in: %s%n", environment.hostJdk());
    System.out.printf("  logs: %s%n", environment.logs());
    if (!options.pluginProperties().isEmpty()) {
      System.out.printf("  plugin settings: %s%n", options.pluginProperties());
    }
    if (environment.agentJdk().feature() < 21) {
      System.out.println(
          "  no JDK 21 or later found: the agent runs on "
              + environment.agentJdk().feature()
              + ", where each watch keeps a platform thread");
    }
    System.out.flush();
    List<String> databases = options.databases();
    for (int d = 0; d < databases.size(); d++) {
      try (FleetDatabase database = FleetDatabase.start(databases.get(d));
          StopOnExit stop = new StopOnExit(database)) {
        if (d == 0) {
          for (int accounts : options.agentScales()) {
            AgentResult result = new AgentScenario(environment, database, accounts).run();
            result.load = load();
            report.agent(result);
          }
          if (options.isolationAccounts() > 0) {
            IsolationResult result =
                new IsolationScenario(
                        environment, database, options.isolationAccounts(), options.seconds())
                    .run();
            result.load = load();
            report.isolation(result);
          }
        }
        if (options.pluginAgents() > 0) {
          new PluginScenario(environment, database).run(report);
        }
      }
    }
  }

  /** Stops the database also when the benchmark itself is stopped (Ctrl-C, SIGTERM). */
  private static final class StopOnExit implements AutoCloseable {
    private final Thread hook;

    StopOnExit(FleetDatabase database) {
      this.hook = new Thread(database::close, "fleet-bench-database-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close() {
      Runtime.getRuntime().removeShutdownHook(hook);
    }
  }

  /** The load averages (1, 5, 15 minutes) from /proc/loadavg: others' work on the machine. */
  static String load() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 0);
      return fields[0] + ", " + fields[1] + ", " + fields[2];
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double memoryGigabytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1048576.0;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Double.NaN;
  }
}
