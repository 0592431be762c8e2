package io.spinagent.benchmarks.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one {@link IsolationScenario} measured: per sickness, the healthy phase before and its own.
 */
final class IsolationResult {

  /**
   * One sickness and the healthy phase right before it, with the CPU the machine and the processes
   * used in each ({@link CpuUse#between}).
   */
  record Phase(
      IsolationScenario.Sickness sickness,
      IsolationProbes.Figures before,
      IsolationProbes.Figures during,
      String cpuBefore,
      String cpuDuring) {}

  final int healthy;
  final Duration phase;
  final List<Phase> phases = new ArrayList<>();
  String load;
  String failure;

  /** What the flooding cluster did in its phase ({@code flooded=<changes> seconds=<s>}). */
  String flood;

  IsolationResult(int healthy, Duration phase) {
    this.healthy = healthy;
    this.phase = phase;
  }
}
