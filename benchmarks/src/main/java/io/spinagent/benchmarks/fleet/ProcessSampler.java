package io.spinagent.benchmarks.fleet;

import static io.spinagent.benchmarks.FailureReporting.reported;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Samples a process's threads and memory every 100 ms while it runs, keeping the peaks, and stops a
 * process that passes the thread guard: this machine has 32,768 thread ids for everyone, and a
 * process holding a thread per watch would take them all.
 */
final class ProcessSampler implements AutoCloseable {

  private final ChildProcess process;
  private final int threadGuard;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "fleet-bench-sampler");
            thread.setDaemon(true);
            return thread;
          });
  private volatile int peakThreads;
  private volatile long peakRss;
  private volatile boolean guardTripped;

  ProcessSampler(ChildProcess process, int threadGuard) {
    this.process = process;
    this.threadGuard = threadGuard;
    // A failed sample is printed (and, as before, ends the sampling).
    ScheduledFuture<?> unused =
        timer.scheduleWithFixedDelay(
            reported("Sampling " + process.name(), this::sample), 0, 100, TimeUnit.MILLISECONDS);
  }

  private void sample() {
    ProcStatus status = process.status();
    peakThreads = Math.max(peakThreads, status.threads());
    peakRss = Math.max(peakRss, status.rssBytes());
    if (status.threads() > threadGuard && !guardTripped) {
      guardTripped = true;
      System.out.printf(
          "  %s passed the thread guard (%,d threads > %,d): stopping it%n",
          process.name(), status.threads(), threadGuard);
      process.kill();
    }
  }

  int peakThreads() {
    return peakThreads;
  }

  long peakRss() {
    return peakRss;
  }

  /** Whether the process was stopped for passing the thread guard. */
  boolean guardTripped() {
    return guardTripped;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
