package io.spinagent.benchmarks.sql;

import java.util.Arrays;
import org.jooq.ExecuteContext;
import org.jooq.TransactionContext;
import org.jooq.impl.DefaultExecuteListener;
import org.jooq.impl.DefaultTransactionListener;

/**
 * What one side's connection spends in the database, from jOOQ's listeners: how many statements
 * it executes, the time from sending each to its result, and how long each commit takes. A commit
 * that stalls for tens or hundreds of milliseconds (the disk's fsync, the database's page
 * flushing) holds up every change queued behind it, and one such stall can set a latency run's
 * p99; the report prints each side's commits next to its percentiles, so that a reader can tell a
 * stall from the writer's own cost.
 *
 * <p>Used by one connection, so by one thread at a time.
 */
final class DatabaseTime {

  private long statements;
  private long statementNanos;
  private long[] commitNanos = new long[1024];
  private int commits;
  private long statementStart;
  private long commitStart;

  /** Counts statements and their time; give it to the connection's jOOQ configuration. */
  final DefaultExecuteListener statementListener = new DefaultExecuteListener() {
    @Override
    public void executeStart(ExecuteContext ctx) {
      statementStart = System.nanoTime();
    }

    @Override
    public void executeEnd(ExecuteContext ctx) {
      statements++;
      statementNanos += System.nanoTime() - statementStart;
    }
  };

  /** Times each commit; give it to the connection's jOOQ configuration. */
  final DefaultTransactionListener commitListener = new DefaultTransactionListener() {
    @Override
    public void commitStart(TransactionContext ctx) {
      commitStart = System.nanoTime();
    }

    @Override
    public void commitEnd(TransactionContext ctx) {
      if (commits == commitNanos.length) {
        commitNanos = Arrays.copyOf(commitNanos, commits * 2);
      }
      commitNanos[commits++] = System.nanoTime() - commitStart;
    }
  };

  long statements() {
    return statements;
  }

  /** A stretch of time begun: when, and where the counters stood. */
  record Stretch(long nanoTime, long statementNanos, int commits) {}

  /** What happened in some stretches of time (the rounds of a latency run), summed. */
  static final class Window {
    private final DatabaseTime time;
    private long nanos;
    private long statementNanos;
    private long[] commits = new long[0];

    Window(DatabaseTime time) {
      this.time = time;
    }

    /** Starts a stretch; {@link #end} adds it. */
    Stretch begin() {
      return new Stretch(System.nanoTime(), time.statementNanos, time.commits);
    }

    void end(Stretch stretch) {
      nanos += System.nanoTime() - stretch.nanoTime();
      statementNanos += time.statementNanos - stretch.statementNanos();
      int added = time.commits - stretch.commits();
      long[] all = Arrays.copyOf(commits, commits.length + added);
      System.arraycopy(time.commitNanos, stretch.commits(), all, commits.length, added);
      commits = all;
    }

    /** e.g. "statements 61%, commits 9% of the time; 1,140 commits: p50 0.7 ms, p99 3.5 ms, max 166 ms". */
    String describe() {
      OpenLoop.Latencies commitTimes = new OpenLoop.Latencies(commits.length);
      long commitNanos = 0;
      for (long commit : commits) {
        commitTimes.add(commit);
        commitNanos += commit;
      }
      return String.format(
          "statements %.0f%%, commits %.0f%% of the time; %,d commits: p50 %.1f ms, p99 %.1f ms, max %.0f ms",
          100.0 * statementNanos / nanos, 100.0 * commitNanos / nanos, commits.length,
          commitTimes.percentileMillis(50), commitTimes.percentileMillis(99), commitTimes.percentileMillis(100));
    }
  }
}
