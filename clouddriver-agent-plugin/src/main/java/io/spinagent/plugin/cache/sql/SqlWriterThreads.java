package io.spinagent.plugin.cache.sql;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL cache writer's threads: {@code spinagent-sql-writer} runs batches (one account at a time
 * per thread, accounts in parallel), {@code spinagent-sql-derive} helps a batch parse and derive
 * its objects ({@link SqlCacheWriter#DERIVATION_HELPERS} of them, shared by all accounts). Threads
 * start on first use. Closed with the plugin's context, so that none outlives the plugin: batches
 * in flight may finish for a while; one that does not is interrupted, and as it was never
 * acknowledged its agent sends it again.
 */
public final class SqlWriterThreads implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SqlWriterThreads.class);
  private static final long FINISH_SECONDS = 10;

  private final ExecutorService batches;
  private final ExecutorService derivation;

  /**
   * @param writerThreads {@code spinagent.cache.writer-threads} (at least 1 is used)
   */
  public SqlWriterThreads(int writerThreads) {
    this.batches =
        Executors.newFixedThreadPool(Math.max(1, writerThreads), daemon("spinagent-sql-writer"));
    this.derivation =
        Executors.newFixedThreadPool(
            SqlCacheWriter.DERIVATION_HELPERS, daemon("spinagent-sql-derive"));
  }

  public Executor batches() {
    return batches;
  }

  public Executor derivation() {
    return derivation;
  }

  /** Whether both pools have stopped and every thread of theirs has ended. */
  public boolean isTerminated() {
    return batches.isTerminated() && derivation.isTerminated();
  }

  @Override
  public void close() {
    batches.shutdown();
    try {
      if (!batches.awaitTermination(FINISH_SECONDS, TimeUnit.SECONDS)) {
        log.warn(
            "SQL cache batches still running after {} s at shutdown: interrupted; their agents send"
                + " them again",
            FINISH_SECONDS);
        batches.shutdownNow();
      }
    } catch (InterruptedException e) {
      batches.shutdownNow();
      Thread.currentThread().interrupt();
    }
    // only batches hand work to the helpers, and every batch has ended
    derivation.shutdownNow();
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
