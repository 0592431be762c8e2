package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * CPU time from {@code /proc} (Linux only): the machine's busy share and chosen processes' cores
 * over an interval. On a two-core machine every process of a benchmark shares the same cores, so a
 * latency figure means little without what the machine was doing meanwhile.
 */
final class CpuUse {

  /** Linux reports process CPU times in clock ticks of 1/100 s (USER_HZ). */
  private static final double TICKS_PER_SECOND = 100.0;

  /** One reading: the machine's busy and total ticks, and each named process group's ticks. */
  record Reading(long nanos, long machineBusy, long machineTotal, Map<String, Long> groups) {}

  private final Map<String, Supplier<Iterable<Long>>> groups = new LinkedHashMap<>();

  /** Adds a named group of processes, whose pids are looked up at every reading. */
  CpuUse group(String name, Supplier<Iterable<Long>> pids) {
    groups.put(name, pids);
    return this;
  }

  Reading read() {
    long busy = 0;
    long total = 0;
    String[] cpu = firstLine(Path.of("/proc/stat")).trim().split("\\s+", 0);
    for (int i = 1; i < cpu.length && i <= 8; i++) {
      long ticks = Long.parseLong(cpu[i]);
      total += ticks;
      if (i != 4 && i != 5) { // idle and iowait
        busy += ticks;
      }
    }
    Map<String, Long> ticks = new LinkedHashMap<>();
    groups.forEach(
        (name, pids) -> {
          long sum = 0;
          for (long pid : pids.get()) {
            sum += processTicks(pid);
          }
          ticks.put(name, sum);
        });
    return new Reading(System.nanoTime(), busy, total, ticks);
  }

  /** "machine 93% busy; plugin 0.41, agent 0.80 cores" between two readings. */
  static String between(Reading from, Reading to) {
    double seconds = (to.nanos() - from.nanos()) / 1e9;
    StringBuilder text = new StringBuilder(String.format("%.0f%% busy", busyPercent(from, to)));
    for (String group : to.groups().keySet()) {
      text.append(String.format("; %s %.2f", group, cpuSeconds(from, to, group) / seconds));
    }
    return text.toString();
  }

  /**
   * "machine 97% busy for 33.5 s; agent 21.3, plugin 14.0 CPU-seconds": what each group spent of an
   * interval that ran to completion (a sync), rather than its average cores.
   */
  static String spent(Reading from, Reading to) {
    StringBuilder text =
        new StringBuilder(
            String.format(
                "machine %.0f%% busy for %.1f s;",
                busyPercent(from, to), (to.nanos() - from.nanos()) / 1e9));
    String separator = " ";
    for (String group : to.groups().keySet()) {
      text.append(String.format("%s%s %.1f", separator, group, cpuSeconds(from, to, group)));
      separator = ", ";
    }
    return text.append(" CPU-seconds").toString();
  }

  private static double busyPercent(Reading from, Reading to) {
    long total = to.machineTotal() - from.machineTotal();
    return total == 0 ? 0.0 : 100.0 * (to.machineBusy() - from.machineBusy()) / total;
  }

  private static double cpuSeconds(Reading from, Reading to, String group) {
    return (to.groups().get(group) - from.groups().getOrDefault(group, 0L)) / TICKS_PER_SECOND;
  }

  /** Every PostgreSQL or MariaDB process on the machine (a server forks one per connection). */
  static List<Long> databaseProcesses() {
    return ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info()
                    .command()
                    .map(
                        c ->
                            c.contains("postgres")
                                || c.contains("mysqld")
                                || c.contains("mariadbd"))
                    .orElse(false))
        .map(ProcessHandle::pid)
        .toList();
  }

  /** utime + stime of a live process, 0 once it is gone. */
  private static long processTicks(long pid) {
    String stat;
    try {
      stat = firstLine(Path.of("/proc", String.valueOf(pid), "stat"));
    } catch (IllegalStateException gone) {
      return 0;
    }
    // The command may hold spaces and parentheses: the fields follow its last ')'.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", 0);
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  private static String firstLine(Path path) {
    try (var lines = Files.lines(path)) {
      return lines.findFirst().orElse("");
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + path, e);
    }
  }
}
