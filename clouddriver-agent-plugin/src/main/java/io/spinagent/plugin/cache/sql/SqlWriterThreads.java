package io.spinagent.plugin.cache.sql;

import io.spinagent.common.DaemonThreads;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL cache writer's threads: {@code spinagent-sql-writer} commits groups of batches ({@code
 * writer-threads} groups at a time, and one more for the accounts that the others leave waiting:
 * quiet accounts while the others commit busy ones, see {@link GroupCommitter}; each account in one
 * group at a time), {@code spinagent-sql-derive} helps a group parse and derive its objects ({@link
 * Derivation#HELPERS} of them). Threads start on first use. Closed with the plugin's context, so
 * that none outlives the plugin: work handed over may finish for a while; a group that does not is
 * interrupted, and as it was never acknowledged its agents send it again.
 */
public final class SqlWriterThreads implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SqlWriterThreads.class);
  private static final long FINISH_SECONDS = 10;

  private final int writerThreads;
  private final ExecutorService committers;
  private final ExecutorService derivation;

  /**
   * @param writerThreads {@code spinagent.cache.writer-threads}: groups committed at a time (at
   *     least 1)
   */
  public SqlWriterThreads(int writerThreads) {
    this.writerThreads = Math.max(1, writerThreads);
    this.committers =
        Executors.newFixedThreadPool(
            this.writerThreads + 1, DaemonThreads.named("spinagent-sql-writer"));
    this.derivation =
        Executors.newFixedThreadPool(
            Derivation.HELPERS, DaemonThreads.named("spinagent-sql-derive"));
  }

  /** How many helpers derive objects alongside each group's committer. */
  public static int derivationHelpers() {
    return Derivation.HELPERS;
  }

  int writerThreads() {
    return writerThreads;
  }

  Executor committers() {
    return committers;
  }

  Executor derivation() {
    return derivation;
  }

  /** Whether both pools have stopped and every thread of theirs has ended. */
  public boolean isTerminated() {
    return committers.isTerminated() && derivation.isTerminated();
  }

  @Override
  public void close() {
    committers.shutdown();
    try {
      if (!committers.awaitTermination(FINISH_SECONDS, TimeUnit.SECONDS)) {
        log.warn(
            "SQL cache commits still running after {} s at shutdown: interrupted; their agents send"
                + " them again",
            FINISH_SECONDS);
        committers.shutdownNow();
      }
    } catch (InterruptedException e) {
      committers.shutdownNow();
      Thread.currentThread().interrupt();
    }
    // only committers hand work to the helpers, and every committer has ended
    derivation.shutdownNow();
    try {
      derivation.awaitTermination(FINISH_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
