package io.spinagent.benchmarks.fleet;

import java.time.Duration;
import java.util.Optional;

/**
 * What one {@link AgentScenario} measured, filled in as it goes (a figure stays null, or a failure
 * is set, when its step could not run).
 *
 * <p>Threads and resident memory come from {@code /proc/<pid>/status}; heap is {@code
 * GC.heap_info}'s "used" after two {@code GC.run} (full collections). Per account and per object
 * figures are above the same process idle: the agent started with no account, the baseline before
 * it starts its informers. The heap per further object is the slope between two cluster sizes (the
 * same processes, the same watches, {@link #grownObjects} more objects), which leaves out what each
 * account and watch costs.
 */
final class AgentResult {

  /** Threads, memory and heap of a process at one moment. */
  record Sample(ProcStatus status, long heapBytes) {}

  final int accounts;
  final int objectsPerAccount;
  String agentJdk;
  String load;

  ProcStatus clustersStarted;
  ProcStatus clustersWithAgent;
  int clustersPeakThreads;
  int watchesWithBaseline;
  int watchesWithAgent;

  long grownObjects;

  Sample baselineIdle;
  Sample baseline;
  Sample baselineGrown;
  Long baselineSyncMillis;

  /** The CPU each process spent from the baseline's start until all were synced. */
  String baselineCpu;

  int baselinePeakThreads;
  long baselinePeakRss;
  String baselineFailure;

  Sample agentIdle;
  Sample agent;
  Sample agentGrown;
  Duration allActive;

  /** The CPU each process spent from the agent's start until all accounts were ACTIVE. */
  String agentCpu;

  int definitions;
  int agentPeakThreads;
  long agentPeakRss;
  Optional<Duration> exit;
  String agentFailure;

  Duration restartActive;
  Long relisted;
  FleetDatabase.RowCount rewritten;
  Optional<Duration> secondExit;
  String restartFailure;

  AgentResult(int accounts, int objectsPerAccount) {
    this.accounts = accounts;
    this.objectsPerAccount = objectsPerAccount;
  }

  long objects() {
    return (long) accounts * objectsPerAccount;
  }

  /** Threads above the idle process, per account; null when either is missing. */
  static Double threadsPerAccount(Sample loaded, Sample idle, int accounts) {
    if (loaded == null || idle == null) {
      return null;
    }
    return (loaded.status().threads() - idle.status().threads()) / (double) accounts;
  }

  /** Heap above the idle process, per {@code units} (accounts or objects); null when missing. */
  static Double heapPer(Sample loaded, Sample idle, long units) {
    if (loaded == null || idle == null) {
      return null;
    }
    return (loaded.heapBytes() - idle.heapBytes()) / (double) units;
  }
}
