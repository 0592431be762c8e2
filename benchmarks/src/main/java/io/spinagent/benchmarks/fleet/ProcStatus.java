package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A process's threads and resident memory, from {@code /proc/<pid>/status} (Linux only): {@code
 * Threads}, {@code VmRSS} and {@code VmHWM} (the peak resident set so far).
 *
 * @param threads the process's threads (every kind: Java, GC, JIT, ...)
 * @param rssBytes resident memory now
 * @param peakRssBytes the most resident memory the process has had
 */
record ProcStatus(int threads, long rssBytes, long peakRssBytes) {

  static final ProcStatus GONE = new ProcStatus(0, 0, 0);

  static ProcStatus of(long pid) {
    int threads = 0;
    long rss = 0;
    long hwm = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
        if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.substring(8).trim());
        } else if (line.startsWith("VmRSS:")) {
          rss = kilobytes(line.substring(6));
        } else if (line.startsWith("VmHWM:")) {
          hwm = kilobytes(line.substring(6));
        }
      }
    } catch (NoSuchFileException gone) {
      return GONE;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ProcStatus(threads, rss, hwm);
  }

  private static long kilobytes(String value) {
    return Long.parseLong(value.trim().replace(" kB", "").trim()) * 1024;
  }

  double rssMegabytes() {
    return rssBytes / (1024.0 * 1024.0);
  }

  double peakRssMegabytes() {
    return peakRssBytes / (1024.0 * 1024.0);
  }
}
