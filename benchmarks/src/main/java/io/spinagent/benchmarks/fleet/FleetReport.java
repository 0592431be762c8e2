package io.spinagent.benchmarks.fleet;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;

/**
 * Prints each scenario's figures as a table: the figure, the same run's baseline where there is
 * one, their ratio, and the target the fleet work aims for.
 */
final class FleetReport {

  private static final String ROW = "  %-44s %18s %18s %8s   %s%n";

  private final PrintStream out;

  FleetReport(PrintStream out) {
    this.out = out;
  }

  void agent(AgentResult r) {
    out.printf(
        "%nOne agent, %,d accounts × %d objects (%,d objects, %,d watches), infrastructure mode%n",
        r.accounts,
        r.objectsPerAccount,
        r.objects(),
        r.accounts * InformerBaselineMain.DEFAULT_KINDS.length);
    out.printf("  agent and baseline on %s; load %s%n", r.agentJdk, r.load);
    out.printf(ROW, "", "baseline", "agent", "ratio", "target");
    if (r.baselineFailure != null) {
      out.printf("  baseline (client-java informers): %s%n", r.baselineFailure);
    }
    if (r.agentFailure != null) {
      out.printf("  agent: %s%n", r.agentFailure);
    }
    row(
        "threads",
        count(r.baseline == null ? null : r.baseline.status().threads()),
        count(r.agent == null ? null : r.agent.status().threads()),
        ratio(
            r.baseline == null ? null : (double) r.baseline.status().threads(),
            r.agent == null ? null : (double) r.agent.status().threads()),
        r.accounts == 200 ? "≤ 300" : "");
    row(
        "  idle (no accounts)",
        count(r.baselineIdle == null ? null : r.baselineIdle.status().threads()),
        count(r.agentIdle == null ? null : r.agentIdle.status().threads()),
        "",
        "");
    Double baselinePerAccount =
        AgentResult.threadsPerAccount(r.baseline, r.baselineIdle, r.accounts);
    Double agentPerAccount = AgentResult.threadsPerAccount(r.agent, r.agentIdle, r.accounts);
    row(
        "  per account, above idle",
        decimal(baselinePerAccount, 1),
        decimal(agentPerAccount, 1),
        ratio(baselinePerAccount, agentPerAccount),
        "");
    row("  peak while syncing", count(r.baselinePeakThreads), count(r.agentPeakThreads), "", "");
    row(
        "resident memory (RSS)",
        megabytes(r.baseline == null ? null : r.baseline.status().rssBytes()),
        megabytes(r.agent == null ? null : r.agent.status().rssBytes()),
        ratio(
            r.baseline == null ? null : (double) r.baseline.status().rssBytes(),
            r.agent == null ? null : (double) r.agent.status().rssBytes()),
        r.accounts == 200 ? "≤ 600 MB" : "");
    row(
        "  peak while syncing",
        megabytes(r.baselinePeakRss == 0 ? null : r.baselinePeakRss),
        megabytes(r.agentPeakRss == 0 ? null : r.agentPeakRss),
        "",
        "");
    row(
        "heap after full GC",
        megabytes(r.baseline == null ? null : r.baseline.heapBytes()),
        megabytes(r.agent == null ? null : r.agent.heapBytes()),
        ratio(
            r.baseline == null ? null : (double) r.baseline.heapBytes(),
            r.agent == null ? null : (double) r.agent.heapBytes()),
        "");
    Double baselinePerObject = AgentResult.heapPer(r.baseline, r.baselineIdle, r.objects());
    Double agentPerObject = AgentResult.heapPer(r.agent, r.agentIdle, r.objects());
    row(
        "  per object, above idle",
        kilobytes(baselinePerObject),
        kilobytes(agentPerObject),
        ratio(baselinePerObject, agentPerObject),
        r.grownObjects > 0 ? "" : "≤ 3 KB");
    Double baselinePerGrown =
        AgentResult.heapPer(r.baselineGrown, r.baseline, Math.max(1, r.grownObjects));
    Double agentPerGrown = AgentResult.heapPer(r.agentGrown, r.agent, Math.max(1, r.grownObjects));
    if (r.grownObjects > 0) {
      row(
          String.format("  per further object (%,d added)", r.grownObjects),
          kilobytes(baselinePerGrown),
          kilobytes(agentPerGrown),
          ratio(baselinePerGrown, agentPerGrown),
          "≤ 3 KB");
    }
    Double baselineHeapPerAccount = AgentResult.heapPer(r.baseline, r.baselineIdle, r.accounts);
    Double agentHeapPerAccount = AgentResult.heapPer(r.agent, r.agentIdle, r.accounts);
    row(
        "  per account, above idle",
        kilobytes(baselineHeapPerAccount),
        kilobytes(agentHeapPerAccount),
        ratio(baselineHeapPerAccount, agentHeapPerAccount),
        "");
    row(
        "time until all synced / all ACTIVE",
        r.baselineSyncMillis == null ? "-" : seconds(Duration.ofMillis(r.baselineSyncMillis)),
        seconds(r.allActive),
        "",
        r.accounts == 200 ? "≤ 30 s" : "");
    if (r.baselineCpu != null) {
      out.printf("    CPU until all synced, informers: %s%n", r.baselineCpu);
    }
    if (r.agentCpu != null) {
      out.printf("    CPU until all ACTIVE, agent:     %s%n", r.agentCpu);
    }
    row(
        "  account definitions written by then",
        "",
        count(r.allActive == null ? null : r.definitions),
        "",
        "");
    row(
        "watches the test API servers held",
        count(r.watchesWithBaseline),
        count(r.watchesWithAgent),
        "",
        "");
    row("SIGTERM → exit", "", exit(r.exit), "", r.accounts == 200 ? "≤ 10 s" : "");
    if (r.restartFailure != null) {
      out.printf("  agent restart: %s%n", r.restartFailure);
    } else if (r.restartActive != null) {
      row("agent restart: time until all ACTIVE", "", seconds(r.restartActive), "", "");
      row(
          "  objects listed again",
          "",
          count(r.relisted) + " of " + String.format("%,d", r.objects()),
          "",
          "");
      row("  cache rows rewritten", "", rows(r.rewritten), "", "");
      row("  SIGTERM → exit after the restart", "", exit(r.secondExit), "", "");
    }
    ProcStatus servers = r.clustersWithAgent != null ? r.clustersWithAgent : r.clustersStarted;
    out.printf(
        "  test API servers (%,d clusters, one process): %,d threads and %,.0f MB RSS holding the"
            + " agent's %,d watches; at most %,d threads%n",
        r.accounts,
        servers == null ? 0 : servers.threads(),
        servers == null ? 0.0 : servers.rssMegabytes(),
        r.watchesWithAgent,
        r.clustersPeakThreads);
    out.flush();
  }

  void plugin(PluginResult r) {
    out.printf(
        "%nOne plugin, %,d simulated agents × 1 account × %d objects, %s%n",
        r.agents, r.objectsPerAgent, r.database);
    out.printf("  protocol negotiated: %s; load %s%n", versions(r.fleetCounts), r.load);
    if (r.failure != null) {
      out.printf("  %s%n", r.failure);
      out.flush();
      return;
    }
    out.printf(ROW, "", "baseline", "fleet", "ratio", "target");
    row("time until all ACTIVE", "", seconds(r.allActive), "", "≤ 60 s");
    row(
        "  account definitions written by then",
        "",
        count(r.definitionsAtActive) + " of " + String.format("%,d", r.agents),
        "",
        "");
    row("time until all account definitions written", "", seconds(r.allDefinitions), "", "≤ 60 s");
    row(
        "plugin threads: all ACTIVE / loaded / peak",
        "",
        r.pluginAtActive.threads() + " / " + r.pluginLoaded.threads() + " / " + r.pluginPeakThreads,
        "",
        "");
    row(
        "plugin RSS: all ACTIVE / loaded / peak",
        "",
        String.format(
            "%.0f / %.0f / %.0f MB",
            r.pluginAtActive.rssMegabytes(),
            r.pluginLoaded.rssMegabytes(),
            r.pluginPeakRss / 1048576.0),
        "",
        "");
    row("change → ack p50 / p99, idle (10/s)", "", percentiles(r.idle), "", "");
    row(
        String.format("change → ack p50 / p99, %,d/s", r.agents),
        percentiles(r.baseline),
        percentiles(r.loaded),
        ratio(
            r.baseline == null ? null : r.baseline.percentileMillis(99),
            r.loaded == null ? null : r.loaded.percentileMillis(99)),
        "p99 ≤ 100 ms, ≤ 1.5×");
    row(
        "  slowest",
        millis(r.baseline == null ? null : r.baseline.maxMillis()),
        millis(r.loaded == null ? null : r.loaded.maxMillis()),
        "",
        "");
    row(
        "  timed changes / not acknowledged",
        r.baseline == null ? "" : r.baseline.count() + " / " + r.baseline.missing(),
        r.loaded == null ? "" : r.loaded.count() + " / " + r.loaded.missing(),
        "",
        "");
    row(
        "  sessions ended (by the agents' silence rule)",
        "",
        r.fleetCounts.sessionsEnded() + " (" + r.fleetCounts.silenceEnded() + ")",
        "",
        "");
    out.flush();
  }

  /** The replica restart of {@link #plugin}'s run. */
  void pluginRestart(PluginResult r) {
    if (r.restartActive != null || r.restartExit != null) {
      row("replica restart: SIGTERM → exit", "", exit(r.restartExit), "", "");
      row("  SIGTERM → the new process started", "", seconds(r.restartReady), "", "");
      row("  SIGTERM → all ACTIVE again", "", seconds(r.restartActive), "", "≤ 60 s");
      row("  cache rows rewritten (nothing changed)", "", rows(r.restartRewritten), "", "≤ 1%");
      row(
          "  objects listed again",
          "",
          count(r.restartCounts == null ? null : r.restartCounts.listedObjects()),
          "",
          "");
    }
    out.flush();
  }

  /** The rolling restart of two replicas of {@link #plugin}'s run. */
  void pluginRolling(PluginResult r) {
    if (r.rollingFailure != null) {
      out.printf("  rolling restart of two replicas: %s%n", r.rollingFailure);
    } else if (r.rollingSteps != null) {
      row("two replicas, one database: all ACTIVE", "", seconds(r.rollingInitialActive), "", "");
      row(
          "  rolling restart: A stopped → all ACTIVE",
          "",
          seconds(r.rollingSteps[0]),
          "",
          "≤ 60 s");
      row("  then B stopped → all ACTIVE", "", seconds(r.rollingSteps[1]), "", "≤ 60 s");
      row("  cache rows rewritten (nothing changed)", "", rows(r.rollingRewritten), "", "≤ 1%");
      row(
          "  objects listed again",
          "",
          count(r.rollingCounts == null ? null : r.rollingCounts.listedObjects()),
          "",
          "");
    }
    out.flush();
  }

  void isolation(IsolationResult r) {
    out.printf(
        "%nIsolation: %d healthy accounts and one that falls sick on one agent, one more account"
            + " on another agent; %d s per phase%n",
        r.healthy, r.phase.toSeconds());
    out.printf(
        "  the healthy accounts' change → row (%d/s) and tunnel GET (%d/s), each sick phase against"
            + " the healthy phase right before it; load %s%n",
        IsolationProbes.CHANGES_PER_SECOND, IsolationProbes.TUNNEL_PER_SECOND, r.load);
    if (r.failure != null) {
      out.printf("  %s%n", r.failure);
      out.flush();
      return;
    }
    out.printf(ROW, "p50 / p99", "healthy before", "sick", "ratio", "target");
    for (IsolationResult.Phase phase : r.phases) {
      out.printf("  %s%n", phase.sickness().description);
      Latencies rowsBefore = phase.before().rows();
      Latencies rowsDuring = phase.during().rows();
      isolationRow("  change → row", rowsBefore, rowsDuring);
      row(
          "    changes timed / not in the cache after 30 s",
          rowsBefore.count() + " / " + rowsBefore.missing(),
          rowsDuring.count() + " / " + rowsDuring.missing(),
          "",
          "");
      Latencies tunnelBefore = phase.before().tunnel();
      Latencies tunnelDuring = phase.during().tunnel();
      isolationRow("  tunnel GET", tunnelBefore, tunnelDuring);
      row(
          "    requests timed / failed",
          tunnelBefore.count() + " / " + phase.before().tunnelErrors(),
          tunnelDuring.count() + " / " + phase.during().tunnelErrors(),
          "",
          "");
      out.printf("    CPU (machine; cores by process), healthy before: %s%n", phase.cpuBefore());
      out.printf("    CPU (machine; cores by process), sick:           %s%n", phase.cpuDuring());
      if (phase.sickness() == IsolationScenario.Sickness.FLOOD && r.flood != null) {
        out.printf(
            "    the flooding cluster and its agent ran at the lowest CPU priority: %s%n", r.flood);
      }
    }
    out.flush();
  }

  /** A healthy phase's percentiles against the sick phase's, and the ratio of their p99s. */
  private void isolationRow(String label, Latencies healthy, Latencies sick) {
    row(
        label,
        percentiles(healthy),
        percentiles(sick),
        ratio(healthy.percentileMillis(99), sick.percentileMillis(99)),
        "p99 ≤ 1.2×");
  }

  private void row(String label, String baseline, String value, String ratio, String target) {
    out.printf(ROW, label, baseline, value, ratio, target);
  }

  private static String versions(SimulatedFleet.Counts counts) {
    if (counts == null || counts.protocolVersions().isEmpty()) {
      return "-";
    }
    StringBuilder text = new StringBuilder();
    counts
        .protocolVersions()
        .forEach(
            (v, n) ->
                text.append(text.length() == 0 ? "" : ", ")
                    .append("v")
                    .append(v)
                    .append(" (")
                    .append(n)
                    .append(" sessions)"));
    return text.toString();
  }

  private static String percentiles(Latencies l) {
    if (l == null || l.count() == 0) {
      return "-";
    }
    return String.format(
        "%s / %s ms", number(l.percentileMillis(50)), number(l.percentileMillis(99)));
  }

  private static String millis(Double value) {
    return value == null || value.isNaN() ? "-" : number(value) + " ms";
  }

  private static String number(double millis) {
    return millis < 10 ? String.format("%.1f", millis) : String.format("%,.0f", millis);
  }

  private static String rows(FleetDatabase.RowCount rows) {
    if (rows == null) {
      return "-";
    }
    return String.format(
        "%,d of %,d (%.1f%%)", rows.written(), rows.total(), 100 * rows.writtenShare());
  }

  private static String exit(Optional<Duration> exit) {
    if (exit == null) {
      return "-";
    }
    return exit.map(FleetReport::seconds)
        .orElse("not after " + AgentScenario.EXIT_LIMIT.toSeconds() + " s");
  }

  private static String seconds(Duration d) {
    return d == null ? "-" : String.format("%.1f s", d.toMillis() / 1000.0);
  }

  private static String count(Number n) {
    return n == null ? "-" : String.format("%,d", n.longValue());
  }

  private static String decimal(Double d, int places) {
    return d == null ? "-" : String.format("%,." + places + "f", d);
  }

  private static String megabytes(Long bytes) {
    return bytes == null ? "-" : String.format("%,.0f MB", bytes / 1048576.0);
  }

  private static String kilobytes(Double bytes) {
    return bytes == null ? "-" : String.format("%,.1f KB", bytes / 1024.0);
  }

  private static String ratio(Double baseline, Double value) {
    if (baseline == null || value == null || baseline == 0 || baseline.isNaN() || value.isNaN()) {
      return "";
    }
    return String.format("%.2f", value / baseline);
  }
}
