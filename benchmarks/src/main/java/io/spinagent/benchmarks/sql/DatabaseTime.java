package io.spinagent.benchmarks.sql;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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

  /** statement kind ({@link #kindOf}) → its count and nanoseconds */
  private final Map<String, long[]> byKind = new TreeMap<>();
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
      long[] kind = byKind.computeIfAbsent(kindOf(ctx.sql()), k -> new long[2]);
      kind[0]++;
      kind[1] += System.nanoTime() - statementStart;
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

  /** e.g. "insert into cats_v1_pod", "delete from cats_v1_pod_rel", "select from spinagent_objects". */
  static String kindOf(String sql) {
    String[] words = sql.split("\\s+", 4);
    String first = words[0].toLowerCase(Locale.ROOT);
    if ((first.equals("insert") || first.equals("delete")) && words.length >= 3) {
      return first + " " + words[1].toLowerCase(Locale.ROOT) + " " + words[2];
    }
    Matcher from = FROM.matcher(sql);
    if (first.equals("select") && from.find()) {
      return "select from " + from.group(1) + (sql.toLowerCase(Locale.ROOT).contains(" union all ") ? " (union all)" : "");
    }
    return first;
  }

  private static final Pattern FROM = Pattern.compile("(?i)\\sfrom\\s+\"?([\\w]+)");

  /** A stretch of time begun: when, and where the counters stood. */
  record Stretch(long nanoTime, int commits, Map<String, long[]> byKind) {}

  private Map<String, long[]> byKindSnapshot() {
    Map<String, long[]> copy = new TreeMap<>();
    byKind.forEach((kind, counts) -> copy.put(kind, counts.clone()));
    return copy;
  }

  /** What happened in some stretches of time (the rounds of a latency run), summed. */
  static final class Window {
    private final DatabaseTime time;
    private long nanos;
    private long[] commits = new long[0];
    private final Map<String, long[]> byKind = new TreeMap<>();

    Window(DatabaseTime time) {
      this.time = time;
    }

    /** Starts a stretch; {@link #end} adds it. */
    Stretch begin() {
      return new Stretch(System.nanoTime(), time.commits, time.byKindSnapshot());
    }

    void end(Stretch stretch) {
      nanos += System.nanoTime() - stretch.nanoTime();
      int added = time.commits - stretch.commits();
      long[] all = Arrays.copyOf(commits, commits.length + added);
      System.arraycopy(time.commitNanos, stretch.commits(), all, commits.length, added);
      commits = all;
      time.byKind.forEach((kind, counts) -> {
        long[] before = stretch.byKind().getOrDefault(kind, new long[2]);
        long[] sum = byKind.computeIfAbsent(kind, k -> new long[2]);
        sum[0] += counts[0] - before[0];
        sum[1] += counts[1] - before[1];
      });
    }

    /** Statements executed in the stretches. */
    long statements() {
      return byKind.values().stream().mapToLong(counts -> counts[0]).sum();
    }

    /**
     * Per commit, each kind of statement: how many and the mean time of one, most time first; e.g.
     * "1.00 insert into cats_v1_pod (2.5 ms), 1.00 insert into spinagent_objects (1.4 ms), …".
     */
    String describeStatements() {
      int perCommit = Math.max(1, commits.length);
      return byKind.entrySet().stream()
          .filter(e -> e.getValue()[0] > 0)
          .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
          .map(e -> String.format("%.2f %s (%.2f ms)", e.getValue()[0] / (double) perCommit, e.getKey(),
              e.getValue()[1] / 1e6 / e.getValue()[0]))
          .collect(Collectors.joining(", "));
    }

    /** e.g. "statements 61%, commits 9% of the time; 1,140 commits: p50 0.7 ms, p99 3.5 ms, max 166 ms". */
    String describe() {
      OpenLoop.Latencies commitTimes = new OpenLoop.Latencies(commits.length);
      long commitNanos = 0;
      long statementNanos = byKind.values().stream().mapToLong(counts -> counts[1]).sum();
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
