package io.spinagent.benchmarks;

/**
 * Tasks handed to an executor whose futures nobody reads: a failure would otherwise end the task
 * (and a periodic one's later runs) without a word, so it is printed to standard error first.
 */
public final class FailureReporting {

  private FailureReporting() {}

  /** {@code task}, printing what it throws (with {@code name}) to standard error before it ends. */
  public static Runnable reported(String name, Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        System.err.println(name + " failed: " + e);
        e.printStackTrace();
        throw e;
      }
    };
  }
}
