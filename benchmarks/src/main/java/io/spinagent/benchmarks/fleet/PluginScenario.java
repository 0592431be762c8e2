package io.spinagent.benchmarks.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * One plugin (a Clouddriver replica with the plugin, on one database) and {@code agents} simulated
 * agents of one account each, speaking the real protocol ({@link SimulatedFleet}): the time until
 * all are ACTIVE and until all their Clouddriver account definitions are written, change latency
 * idle and with every agent changing an object a second, against the baseline of one account
 * sending the same total rate in the same run; then a restart of the replica, and a rolling restart
 * of two replicas on one database (see {@link PluginResult}).
 */
final class PluginScenario {

  /** Changes per second across the fleet in the idle phase. */
  static final double IDLE_RATE = 10;

  private final FleetEnvironment environment;
  private final FleetDatabase database;
  private final int agents;
  private final int objects;
  private final Duration seconds;

  PluginScenario(FleetEnvironment environment, FleetDatabase database) {
    this.environment = environment;
    this.database = database;
    this.agents = environment.options().pluginAgents();
    this.objects = environment.options().simulatedObjects();
    this.seconds = environment.options().seconds();
  }

  /** Runs every phase, printing each part of {@code report} as soon as it is measured. */
  PluginResult run(FleetReport report) {
    PluginResult result = new PluginResult(database.kind(), agents, objects);
    FleetDatabase.Scenario db = database.freshScenario("fleet_plugin_" + agents);
    try (PluginReplica replica = new PluginReplica("single", environment, db, false)) {
      replica.start();
      try (SimulatedFleet fleet =
              new SimulatedFleet("sim", agents, objects, List.of(replica.grpcPort()));
          ProcessSampler sampler = new ProcessSampler(replica.process(), Integer.MAX_VALUE)) {
        connect(fleet, replica, db, result);
        if (result.allActive == null) {
          result.load = FleetBenchmark.load();
          result.failure =
              "not all ACTIVE within "
                  + environment.options().activeTimeout().toSeconds()
                  + " s: "
                  + replica.accounts("ACTIVE")
                  + " of "
                  + agents;
          report.plugin(result);
          return result;
        }
        result.pluginAtActive = replica.process().status();
        Duration warmUp = seconds.dividedBy(3);
        result.idle = fleet.spread(IDLE_RATE, warmUp, seconds);
        result.loaded = fleet.perAgent(1.0, warmUp, seconds);
        result.pluginLoaded = replica.process().status();
        result.pluginPeakThreads = sampler.peakThreads();
        result.pluginPeakRss = sampler.peakRss();
        result.fleetCounts = fleet.counters().snapshot();
        try (SimulatedFleet one =
            new SimulatedFleet("one", 1, objects, List.of(replica.grpcPort()))) {
          one.connectAll();
          await(
              () -> replica.accounts("ACTIVE"), agents + 1, environment.options().activeTimeout());
          result.baseline = one.perAgent(agents, warmUp, seconds);
        }
        result.load = FleetBenchmark.load();
        report.plugin(result);
        if (environment.options().restarts()) {
          restart(fleet, replica, db, result);
          report.pluginRestart(result);
        }
      }
    }
    if (environment.options().restarts()) {
      rolling(result);
      report.pluginRolling(result);
    }
    return result;
  }

  /** Connects every agent at once; times ACTIVE and the definitions. */
  private void connect(
      SimulatedFleet fleet, PluginReplica replica, FleetDatabase.Scenario db, PluginResult result) {
    long start = System.nanoTime();
    long deadline = start + environment.options().activeTimeout().toNanos();
    fleet.connectAll();
    while (System.nanoTime() < deadline
        && (result.allActive == null || result.allDefinitions == null)) {
      int active = replica.accounts("ACTIVE");
      int definitions = db.accountDefinitions();
      Duration now = Duration.ofNanos(System.nanoTime() - start);
      if (result.allActive == null && active >= agents) {
        result.allActive = now;
        result.definitionsAtActive = definitions;
      }
      if (result.allDefinitions == null && definitions >= agents) {
        result.allDefinitions = now;
      }
      Sleep.of(Duration.ofMillis(250));
    }
  }

  /** SIGTERM the replica, start it again on the same ports and database; agents reconnect. */
  private void restart(
      SimulatedFleet fleet, PluginReplica replica, FleetDatabase.Scenario db, PluginResult result) {
    Sleep.of(Duration.ofSeconds(5));
    SimulatedFleet.Counts before = fleet.counters().snapshot();
    long since = System.currentTimeMillis();
    long start = System.nanoTime();
    result.restartExit = replica.stop(AgentScenario.EXIT_LIMIT);
    replica.start();
    result.restartReady = Duration.ofNanos(System.nanoTime() - start);
    result.restartActive = awaitBack(fleet, start, () -> replica.accounts("ACTIVE")).orElse(null);
    Sleep.of(Duration.ofSeconds(5));
    result.restartRewritten = db.cacheRows(since);
    result.restartCounts = fleet.counters().snapshot().since(before);
  }

  /**
   * Two replicas with the plugin's HA settings on a fresh database, the agents spread over both;
   * once all are ACTIVE, replica A is stopped (its agents reconnect to B) and started again, then B
   * likewise.
   */
  private void rolling(PluginResult result) {
    FleetDatabase.Scenario db = database.freshScenario("fleet_rolling_" + agents);
    try (PluginReplica a = new PluginReplica("a", environment, db, true);
        PluginReplica b = new PluginReplica("b", environment, db, true)) {
      a.start();
      b.start();
      try (SimulatedFleet fleet =
          new SimulatedFleet("roll", agents, objects, List.of(a.grpcPort(), b.grpcPort()))) {
        fleet.connectAll();
        result.rollingInitialActive =
            await(() -> a.accounts("ACTIVE"), agents, environment.options().activeTimeout())
                .orElse(null);
        if (result.rollingInitialActive == null) {
          result.rollingFailure = "the two replicas did not get all accounts ACTIVE";
          return;
        }
        Sleep.of(Duration.ofSeconds(5));
        SimulatedFleet.Counts before = fleet.counters().snapshot();
        long since = System.currentTimeMillis();
        result.rollingSteps = new Duration[2];
        PluginReplica[] order = {a, b};
        for (int i = 0; i < 2; i++) {
          PluginReplica stopped = order[i];
          PluginReplica other = order[1 - i];
          long start = System.nanoTime();
          stopped.stop(AgentScenario.EXIT_LIMIT);
          Optional<Duration> back = awaitBack(fleet, start, () -> other.accounts("ACTIVE"));
          stopped.start();
          if (back.isEmpty()) {
            result.rollingFailure =
                "after stopping replica " + stopped.name() + " not all accounts were ACTIVE again";
            return;
          }
          result.rollingSteps[i] = back.get();
        }
        Sleep.of(Duration.ofSeconds(5));
        result.rollingRewritten = db.cacheRows(since);
        result.rollingCounts = fleet.counters().snapshot().since(before);
      }
    }
  }

  /** Waits for {@code count} to reach {@code target}; how long it took, empty on timeout. */
  private static Optional<Duration> await(IntSupplier count, int target, Duration timeout) {
    long start = System.nanoTime();
    while (System.nanoTime() - start < timeout.toNanos()) {
      if (count.getAsInt() >= target) {
        return Optional.of(Duration.ofNanos(System.nanoTime() - start));
      }
      Sleep.of(Duration.ofMillis(250));
    }
    return Optional.empty();
  }

  /**
   * Waits until every agent is back (streaming since before {@code start}, or reconnected since and
   * its listing acknowledged) and the replica's API reports every account ACTIVE; timed from {@code
   * start}. The API alone is not enough: another replica's accounts show as the shared table has
   * them, which may be ACTIVE from before the move.
   */
  private Optional<Duration> awaitBack(SimulatedFleet fleet, long start, IntSupplier active) {
    long deadline = start + environment.options().activeTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      if (fleet.settledSince(start) && active.getAsInt() >= agents) {
        return Optional.of(Duration.ofNanos(System.nanoTime() - start));
      }
      Sleep.of(Duration.ofMillis(100));
    }
    return Optional.empty();
  }
}
