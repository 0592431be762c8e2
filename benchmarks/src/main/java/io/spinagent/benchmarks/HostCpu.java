package io.spinagent.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How the machine's CPU time was spent while a benchmark phase ran, from Linux's {@code
 * /proc/stat}: above all the share the hypervisor gave to other guests ("steal"), which on a shared
 * virtual machine stretches latencies and moves rates from one run to the next whatever the code
 * does. Reported beside the figures so that a run can be judged by the machine it had.
 */
public final class HostCpu {

  private static final Path STAT = Path.of("/proc/stat");

  /** Cumulative CPU ticks of all cores. */
  public record Ticks(long total, long idle, long steal) {}

  private HostCpu() {}

  /**
   * How CPU time was spent since {@code start} (from {@link #now}), as "steal 12%, idle 30%", or
   * "n/a" where /proc/stat cannot be read.
   */
  public static String since(Ticks start) {
    Ticks end = now();
    if (start == null || end == null) {
      return "n/a (no /proc/stat)";
    }
    double total = Math.max(1, end.total() - start.total());
    return String.format(
        "steal %.0f%%, idle %.0f%%",
        100 * (end.steal() - start.steal()) / total, 100 * (end.idle() - start.idle()) / total);
  }

  /** The machine's CPU ticks now; null where they cannot be read (not Linux). */
  public static Ticks now() {
    try {
      List<String> lines = Files.readAllLines(STAT);
      // cpu  user nice system idle iowait irq softirq steal [guest guest_nice, counted in user]
      String[] f = lines.get(0).trim().split("\\s+", 0);
      long total = 0;
      for (int i = 1; i <= 8 && i < f.length; i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
      return new Ticks(total, idle, steal);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
