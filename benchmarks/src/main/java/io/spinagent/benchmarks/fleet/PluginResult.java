package io.spinagent.benchmarks.fleet;

import java.time.Duration;
import java.util.Optional;

/**
 * What one {@link PluginScenario} measured, filled in as it goes (null: the step did not run or did
 * not finish; a failure says why).
 *
 * <p>Latency is from when a change was due (open-loop) until the simulated agent received the
 * acknowledgement covering it, which the plugin sends only after the change's transaction
 * committed: change → row, plus the acknowledgement's way back. Cache rows rewritten are rows of
 * Clouddriver's cache tables ({@code cats_v1_*}) and of {@code spinagent_objects} whose {@code
 * last_updated} is at or after the restart began, while no object changed.
 */
final class PluginResult {

  final String database;
  final int agents;
  final int objectsPerAgent;
  String load;

  Duration allActive;
  int definitionsAtActive;
  Duration allDefinitions;
  ProcStatus pluginAtActive;
  ProcStatus pluginLoaded;
  int pluginPeakThreads;
  long pluginPeakRss;
  Latencies idle;
  Latencies loaded;
  Latencies baseline;
  SimulatedFleet.Counts fleetCounts;
  String failure;

  Optional<Duration> restartExit;
  Duration restartReady;
  Duration restartActive;
  FleetDatabase.RowCount restartRewritten;
  SimulatedFleet.Counts restartCounts;

  Duration rollingInitialActive;
  Duration[] rollingSteps;
  FleetDatabase.RowCount rollingRewritten;
  SimulatedFleet.Counts rollingCounts;
  String rollingFailure;

  PluginResult(String database, int agents, int objectsPerAgent) {
    this.database = database;
    this.agents = agents;
    this.objectsPerAgent = objectsPerAgent;
  }
}
