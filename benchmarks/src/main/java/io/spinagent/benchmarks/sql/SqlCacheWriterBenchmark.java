package io.spinagent.benchmarks.sql;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.spinagent.benchmarks.GcPauses;
import io.spinagent.benchmarks.HostCpu;
import io.spinagent.benchmarks.JitCompilation;
import io.spinagent.benchmarks.sql.OpenLoop.Latencies;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.sql.SqlCacheWriter;
import io.spinagent.plugin.cache.sql.SqlWriterSettings;
import io.spinagent.plugin.cache.sql.SqlWriterThreads;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.store.SpinAgentSchema;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.testkit.db.CatsTemplateTables;
import io.spinagent.testkit.db.EmbeddedDatabase;
import io.spinagent.testkit.db.EmbeddedMariaDb;
import io.spinagent.testkit.db.EmbeddedPostgreSql;
import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.jooq.impl.DefaultTransactionListenerProvider;

/**
 * The SQL cache writer (issue 5's figures) on embedded MariaDB (jOOQ MYSQL, Clouddriver's default)
 * and PostgreSQL with Clouddriver's template tables: changes committed per second at saturation and
 * change-to-commit latency at a fixed offered rate, each against baselines measured in the same run
 * on the same database — a raw multi-row jOOQ upsert of the same rows (the physical limit) and
 * Clouddriver's polling (re-list, derive and authoritatively rewrite the whole account every
 * cycle).
 *
 * <p>Each phase is measured after the code has settled ({@link #untilJitSettles}). Writer and raw
 * upsert take turns on the same tables batch by batch. After each raw batch the writer is fed the
 * same changes untimed, so that its state (resourceVersions, relationship index) stays that of a
 * writer that saw the whole stream. Each side has its own JDBC connection, as a connection from
 * Clouddriver's pool would be. The latency runs take turns too, in rounds of a few seconds (see
 * {@link #latencies}). The polling baseline runs last, alone in emptied tables.
 *
 * <p>Flags: {@code --objects} (per account, 5000), {@code --changes} (per side, 20000), {@code
 * --seconds} (of each latency run, 10), {@code --rate} (offered changes/s, 1000), {@code --batch}
 * (most changes per batch, 500 as the agent sends), {@code --databases} (mariadb,postgres), {@code
 * --remembered} (the writer's spinagent.cache.remembered-objects, 100000; 0 reads every batch's
 * rows back), and for the fleet variant ({@link FleetPhase}) {@code --fleet-accounts} (1000; 0
 * leaves it out), {@code --fleet-objects} (10 per account) and {@code --writer-threads} (the
 * plugin's default).
 *
 * <p>One program of some length: its phases share the databases, the workload, the warm-up and the
 * report, and take turns on the same connections.
 */
public final class SqlCacheWriterBenchmark {

  /** Rounds of each latency run; see {@link #latencies}. */
  private static final int LATENCY_ROUNDS = 4;

  /** Warm-up rounds end once one spends less than this share of its time compiling. */
  private static final double SETTLED_JIT_SHARE = 0.1;

  private static final int THROUGHPUT_WARM_UP_CHANGES = 1_000;
  private static final int MAX_THROUGHPUT_WARM_UP_ROUNDS = 40;
  private static final int MAX_LATENCY_WARM_UP_ROUNDS = 10;
  private static final int MAX_POLLING_WARM_UP_ROUNDS = 10;
  private static final GcPauses GC = GcPauses.record();

  private SqlCacheWriterBenchmark() {}

  record Options(
      int objects,
      int changes,
      int seconds,
      int rate,
      int batch,
      List<String> databases,
      int remembered,
      int fleetAccounts,
      int fleetObjects,
      int writerThreads) {

    static Options parse(String[] args) {
      Map<String, String> flags = new LinkedHashMap<>();
      for (String arg : args) {
        if (!arg.startsWith("--") || !arg.contains("=")) {
          throw new IllegalArgumentException("expected --name=value, got '" + arg + "'");
        }
        flags.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      }
      Set<String> unknown = new TreeSet<>(flags.keySet());
      unknown.removeAll(
          List.of(
              "objects",
              "changes",
              "seconds",
              "rate",
              "batch",
              "databases",
              "remembered",
              "fleet-accounts",
              "fleet-objects",
              "writer-threads"));
      if (!unknown.isEmpty()) {
        throw new IllegalArgumentException(
            "unknown flags "
                + unknown
                + "; known: --objects --changes --seconds --rate --batch --databases --remembered"
                + " --fleet-accounts --fleet-objects --writer-threads");
      }
      Options options =
          new Options(
              Integer.parseInt(flags.getOrDefault("objects", "5000")),
              Integer.parseInt(flags.getOrDefault("changes", "20000")),
              Integer.parseInt(flags.getOrDefault("seconds", "10")),
              Integer.parseInt(flags.getOrDefault("rate", "1000")),
              Integer.parseInt(flags.getOrDefault("batch", "500")),
              List.of(flags.getOrDefault("databases", "mariadb,postgres").split(",")),
              Integer.parseInt(
                  flags.getOrDefault(
                      "remembered",
                      Integer.toString(new SpinAgentProperties.Cache().getRememberedObjects()))),
              Integer.parseInt(flags.getOrDefault("fleet-accounts", "1000")),
              Integer.parseInt(flags.getOrDefault("fleet-objects", "10")),
              Integer.parseInt(
                  flags.getOrDefault(
                      "writer-threads",
                      Integer.toString(new SpinAgentProperties.Cache().getWriterThreads()))));
      return options;
    }
  }

  record Figures(
      String database,
      Throughput throughput,
      LatencyRun latency,
      Latencies pollingLatency,
      BelowCapacity belowCapacity,
      PollingCycle.Result cycle,
      int cycleChanges,
      double listingMillis,
      double firstCycleMillis,
      String throughputCpu,
      String latencyCpu,
      List<WarmUp> warmUps,
      FleetPhase.Figures fleet) {}

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    System.setProperty("org.jooq.no-logo", "true");
    java.util.logging.Logger.getLogger("liquibase").setLevel(java.util.logging.Level.WARNING);
    WorkloadShape shape = WorkloadShape.of(options.objects());
    List<Figures> figures = new ArrayList<>();
    for (String database : options.databases()) {
      Supplier<EmbeddedDatabase> launcher =
          switch (database.trim()) {
            case "mariadb" -> EmbeddedMariaDb::launch;
            case "postgres" -> EmbeddedPostgreSql::launch;
            default ->
                throw new IllegalArgumentException(
                    "unknown database '" + database + "': mariadb or postgres");
          };
      System.out.printf("%s: running …%n", database);
      figures.add(run(database.trim(), launcher, options));
    }
    print(options, shape.objects(), shape.averageBytes(), figures);
  }

  /**
   * The account's size and mean object size, from a workload of its own that is not held while
   * measuring.
   */
  private record WorkloadShape(int objects, double averageBytes) {
    static WorkloadShape of(int objects) {
      List<ObjectChange> listing = new ClusterWorkload(objects, 42).listing();
      return new WorkloadShape(
          listing.size(),
          listing.stream().mapToInt(c -> c.getObjectJson().size()).average().orElse(0));
    }
  }

  private static Figures run(String name, Supplier<EmbeddedDatabase> launcher, Options options)
      throws Exception {
    try (EmbeddedDatabase db = launcher.get();
        Connection writerConnection = connect(db);
        Connection rawConnection = connect(db);
        Connection pollingConnection = connect(db)) {
      SQLDialect sqlDialect = SQLDialect.valueOf(db.dialect());
      CacheTypes.Dialect dialect = dialectOf(sqlDialect);
      DatabaseTime writerTime = new DatabaseTime();
      DatabaseTime rawTime = new DatabaseTime();
      DSLContext writerJooq = jooq(writerConnection, sqlDialect, writerTime);
      CatsTemplateTables.create(db);
      // on a connection of its own: Liquibase leaves its connection outside auto-commit
      SpinAgentSchema.migrate(db.dataSource());
      // the writer's threads as the plugin makes them, with one committer: it has one connection
      try (SqlWriterThreads threads = new SqlWriterThreads(1)) {
        SqlCacheWriter writer =
            new SqlCacheWriter(
                writerJooq,
                SqlWriterSettings.defaults(options.remembered()),
                account -> FormatOptions.DEFAULTS,
                threads,
                new SimpleMeterRegistry(),
                Clock.systemUTC());
        RawUpsert raw =
            new RawUpsert(jooq(rawConnection, sqlDialect, rawTime), writer.tables(), dialect);
        ClusterWorkload workload = new ClusterWorkload(options.objects(), 42);

        List<ObjectChange> listing = workload.listing();
        raw.prepare(listing);
        long listingStart = System.nanoTime();
        writeListing(writer, listing, options.batch());
        double listingMillis = (System.nanoTime() - listingStart) / 1e6;
        progress(name, "initial listing through the writer: %.0f ms", listingMillis);
        analyze(writerJooq, dialect);

        WarmUp throughputWarmUp =
            untilJitSettles(
                name,
                "throughput",
                MAX_THROUGHPUT_WARM_UP_ROUNDS,
                () ->
                    interleave(
                        workload,
                        writer,
                        raw,
                        THROUGHPUT_WARM_UP_CHANGES,
                        options.batch(),
                        writerTime,
                        rawTime));
        HostCpu.Ticks throughputStart = HostCpu.now();
        long throughputJit = JitCompilation.millis();
        Throughput throughput =
            interleave(
                workload, writer, raw, options.changes(), options.batch(), writerTime, rawTime);
        String throughputCpu =
            HostCpu.since(throughputStart) + "; " + JitCompilation.since(throughputJit);
        progress(
            name,
            "throughput: writer %.0f changes/s, raw upsert %.0f changes/s (host CPU: %s)",
            throughput.writerRate(),
            throughput.rawRate(),
            throughputCpu);

        int offered = options.rate() * options.seconds();
        WarmUp latencyWarmUp =
            latencyWarmUp(
                name, workload, writer, raw, options.rate(), options, writerTime, rawTime);
        HostCpu.Ticks latencyStart = HostCpu.now();
        long latencyJit = JitCompilation.millis();
        LatencyRun latency =
            latencies(
                workload,
                writer,
                raw,
                options.rate(),
                options.seconds(),
                options.batch(),
                writerTime,
                rawTime);
        String latencyCpu = HostCpu.since(latencyStart) + "; " + JitCompilation.since(latencyJit);
        progress(
            name,
            "latency at %d/s: writer p99 %.1f ms, raw upsert p99 %.1f ms (host CPU: %s)",
            options.rate(),
            latency.writer().percentileMillis(99),
            latency.raw().percentileMillis(99),
            latencyCpu);
        BelowCapacity belowCapacity = null;
        if (throughput.writerRate() < options.rate()) {
          // above the writer's capacity the queue grows all run long: also measure a steady state
          int rate = (int) (0.7 * throughput.writerRate());
          latencyWarmUp(name, workload, writer, raw, rate, options, writerTime, rawTime);
          LatencyRun below =
              latencies(
                  workload,
                  writer,
                  raw,
                  rate,
                  options.seconds(),
                  options.batch(),
                  writerTime,
                  rawTime);
          belowCapacity = new BelowCapacity(rate, below.writer(), below.raw());
          progress(
              name,
              "latency at %d/s (70%% of the writer's capacity): writer p99 %.1f ms, raw upsert p99"
                  + " %.1f ms",
              rate,
              below.writer().percentileMillis(99),
              below.raw().percentileMillis(99));
        }

        // Polling alone in the tables, as Clouddriver's agent would be.
        clearCacheTables(writerJooq, dialect);
        PollingCycle polling =
            new PollingCycle(
                jooq(pollingConnection, sqlDialect, new DatabaseTime()), writer.tables(), dialect);
        Map<String, byte[]> state = new ConcurrentHashMap<>();
        listing = workload.listing();
        listing.forEach(c -> apply(state, c));
        PollingCycle.Result first = polling.run(state.values()); // writes everything
        analyze(writerJooq, dialect);
        WarmUp pollingWarmUp =
            untilJitSettles(
                name,
                "polling",
                MAX_POLLING_WARM_UP_ROUNDS,
                () -> {
                  workload.changes(options.rate()).forEach(c -> apply(state, c));
                  polling.run(state.values());
                });
        List<ObjectChange> second = workload.changes(options.rate());
        second.forEach(c -> apply(state, c));
        PollingCycle.Result cycle = polling.run(state.values());
        List<ObjectChange> forPolling = workload.changes(offered);
        Latencies pollingLatency =
            OpenLoop.runCycles(
                forPolling,
                options.rate(),
                i -> apply(state, forPolling.get(i)),
                () -> polling.run(new ArrayList<>(state.values())));
        progress(
            name,
            "polling: cycle %.0f ms, latency p99 %.0f ms",
            cycle.nanos() / 1e6,
            pollingLatency.percentileMillis(99));
        FleetPhase.Figures fleet =
            options.fleetAccounts() > 0 ? FleetPhase.run(name, db, sqlDialect, options) : null;
        return new Figures(
            name,
            throughput,
            latency,
            pollingLatency,
            belowCapacity,
            cycle,
            second.size(),
            listingMillis,
            first.nanos() / 1e6,
            throughputCpu,
            latencyCpu,
            List.of(throughputWarmUp, latencyWarmUp, pollingWarmUp),
            fleet);
      }
    }
  }

  /**
   * Latencies at a rate the writer sustains, measured when the offered rate is above its capacity.
   */
  record BelowCapacity(int rate, Latencies writer, Latencies raw) {}

  /**
   * The writer's and the raw upsert's latency with {@code rate} changes/s offered open-loop for
   * {@code seconds} each, in {@link #LATENCY_ROUNDS} rounds that alternate which side goes first
   * (after {@link #latencyWarmUp}); each side's latencies are pooled over its rounds. Run one after
   * the other, the side that ran first met whatever the database's background work (page flushing
   * after the throughput runs, most likely) and the machine's stalls happened to do in its seconds;
   * in rounds, they fall on both sides alike. Each side runs on its own changes; after each raw
   * round the writer catches up, untimed, on the raw upsert's changes.
   */
  private static LatencyRun latencies(
      ClusterWorkload workload,
      SqlCacheWriter writer,
      RawUpsert raw,
      int rate,
      int seconds,
      int batch,
      DatabaseTime writerTime,
      DatabaseTime rawTime)
      throws Exception {
    int offered = rate * seconds;
    LatencyRun run = new LatencyRun(offered, writerTime, rawTime);
    for (int round = 0; round < LATENCY_ROUNDS; round++) {
      int changes = offered / LATENCY_ROUNDS + (round < offered % LATENCY_ROUNDS ? 1 : 0);
      latencyRound(workload, writer, raw, rate, batch, changes, round % 2 == 1, run);
    }
    return run;
  }

  /**
   * Each side's latencies, what its connection spent in the database meanwhile (see {@link
   * DatabaseTime}), and the garbage-collection pauses while it ran.
   */
  record LatencyRun(
      Latencies writer,
      Latencies raw,
      DatabaseTime.Window writerTime,
      DatabaseTime.Window rawTime,
      GcPauses.Tally writerGc,
      GcPauses.Tally rawGc) {
    LatencyRun(int changes, DatabaseTime writerTime, DatabaseTime rawTime) {
      this(
          new Latencies(changes),
          new Latencies(changes),
          new DatabaseTime.Window(writerTime),
          new DatabaseTime.Window(rawTime),
          GC.tally(),
          GC.tally());
    }
  }

  /**
   * One round of {@link #latencies}: {@code changes} through each side, the writer first or second.
   */
  private static void latencyRound(
      ClusterWorkload workload,
      SqlCacheWriter writer,
      RawUpsert raw,
      int rate,
      int batch,
      int changes,
      boolean writerFirst,
      LatencyRun run)
      throws Exception {
    for (boolean writerTurn :
        writerFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
      if (writerTurn) {
        List<ObjectChange> forWriter = workload.changes(changes);
        raw.prepare(forWriter);
        DatabaseTime.Stretch stretch = run.writerTime().begin();
        run.writer().addAll(OpenLoop.run(forWriter, rate, batch, b -> commit(writer, b)));
        run.writerTime().end(stretch);
        run.writerGc().add(stretch.nanoTime(), System.nanoTime());
      } else {
        List<ObjectChange> forRaw = workload.changes(changes);
        List<RawUpsert.Row> rows = raw.prepare(forRaw);
        DatabaseTime.Stretch stretch = run.rawTime().begin();
        run.raw().addAll(OpenLoop.run(rows, rate, batch, raw::apply));
        run.rawTime().end(stretch);
        run.rawGc().add(stretch.nanoTime(), System.nanoTime());
        catchUp(writer, forRaw, batch);
      }
    }
  }

  /**
   * @param derivationRate changes/s of deriving the rows alone (parse, derive, serialise, hash;
   *     untimed for raw)
   */
  record Throughput(
      double writerRate,
      double rawRate,
      int changes,
      double derivationRate,
      DatabaseTime.Window writerTime,
      DatabaseTime.Window rawTime,
      GcPauses.Tally writerGc,
      GcPauses.Tally rawGc) {

    double writerStatementsPerChange() {
      return writerTime.statements() / (double) changes;
    }

    double rawStatementsPerChange() {
      return rawTime.statements() / (double) changes;
    }
  }

  /**
   * {@code count} changes for each side, batch by batch in turns (writer, raw upsert, the writer
   * catching up untimed on the raw upsert's batch), so that both meet the same load on this shared
   * machine; each side's rate is its changes over the sum of its batches' times.
   */
  private static Throughput interleave(
      ClusterWorkload workload,
      SqlCacheWriter writer,
      RawUpsert raw,
      int count,
      int batch,
      DatabaseTime writerTime,
      DatabaseTime rawTime)
      throws Exception {
    List<List<ObjectChange>> forWriter = new ArrayList<>();
    List<List<ObjectChange>> forRaw = new ArrayList<>();
    List<List<RawUpsert.Row>> rows = new ArrayList<>();
    long prepareNanos = 0;
    for (int done = 0; done < count; done += batch) {
      int size = Math.min(batch, count - done);
      forWriter.add(workload.changes(size));
      raw.prepare(forWriter.get(forWriter.size() - 1));
      forRaw.add(workload.changes(size));
      long start = System.nanoTime();
      rows.add(raw.prepare(forRaw.get(forRaw.size() - 1)));
      prepareNanos += System.nanoTime() - start;
    }
    long writerNanos = 0;
    long rawNanos = 0;
    DatabaseTime.Window writerWindow = new DatabaseTime.Window(writerTime);
    DatabaseTime.Window rawWindow = new DatabaseTime.Window(rawTime);
    GcPauses.Tally writerGc = GC.tally();
    GcPauses.Tally rawGc = GC.tally();
    for (int i = 0; i < forWriter.size(); i++) {
      DatabaseTime.Stretch stretch = writerWindow.begin();
      long start = System.nanoTime();
      commit(writer, forWriter.get(i));
      writerNanos += System.nanoTime() - start;
      writerWindow.end(stretch);
      writerGc.add(start, System.nanoTime());
      stretch = rawWindow.begin();
      start = System.nanoTime();
      raw.apply(rows.get(i));
      rawNanos += System.nanoTime() - start;
      rawWindow.end(stretch);
      rawGc.add(start, System.nanoTime());
      commit(writer, forRaw.get(i));
    }
    return new Throughput(
        count / (writerNanos / 1e9),
        count / (rawNanos / 1e9),
        count,
        count / (prepareNanos / 1e9),
        writerWindow,
        rawWindow,
        writerGc,
        rawGc);
  }

  /** Untimed latency rounds at {@code rate} ({@link #latencyRound}), until the code has settled. */
  private static WarmUp latencyWarmUp(
      String database,
      ClusterWorkload workload,
      SqlCacheWriter writer,
      RawUpsert raw,
      int rate,
      Options options,
      DatabaseTime writerTime,
      DatabaseTime rawTime)
      throws Exception {
    int changes = rate * options.seconds() / LATENCY_ROUNDS;
    return untilJitSettles(
        database,
        "latency at " + rate + "/s",
        MAX_LATENCY_WARM_UP_ROUNDS,
        () ->
            latencyRound(
                workload,
                writer,
                raw,
                rate,
                options.batch(),
                changes,
                true,
                new LatencyRun(changes, writerTime, rawTime)));
  }

  /** Work that warms the code up; what it measures is dropped. */
  interface WarmUpRound {
    void run() throws Exception;
  }

  /**
   * How a phase was warmed up: {@code rounds} rounds, the last of which spent {@code lastJitShare}
   * of its time compiling (summed over the compiler threads, so it can exceed 1).
   */
  record WarmUp(String phase, int rounds, double lastJitShare) {
    /** False when the rounds ran out first. */
    boolean settled() {
      return lastJitShare < SETTLED_JIT_SHARE;
    }

    @Override
    public String toString() {
      return String.format(
          "%s %d round(s), the last compiling %.1f%% of its time%s",
          phase,
          rounds,
          100 * lastJitShare,
          settled() ? "" : " (NOT settled: figures include code still being compiled)");
    }
  }

  /**
   * Runs {@code round} until one spends less than {@link #SETTLED_JIT_SHARE} of its time compiling,
   * at most {@code maxRounds} times. Measured right after start-up, the writer's code is still
   * being compiled: on two cores the compiler threads took about a core for the first 7,000
   * changes, and the writer has more code to compile than the raw upsert, which made the writer
   * look up to a fifth slower than it runs in a Clouddriver that has been up for a while.
   */
  static WarmUp untilJitSettles(String database, String phase, int maxRounds, WarmUpRound round)
      throws Exception {
    for (int rounds = 1; ; rounds++) {
      long jit = JitCompilation.millis();
      long start = System.nanoTime();
      round.run();
      double share =
          jit < 0 ? 0 : (JitCompilation.millis() - jit) / ((System.nanoTime() - start) / 1e6);
      WarmUp warmUp = new WarmUp(phase, rounds, share);
      if (warmUp.settled() || rounds == maxRounds) {
        progress(database, "warm-up: %s", warmUp);
        return warmUp;
      }
    }
  }

  @FormatMethod
  static void progress(String database, @FormatString String format, Object... args) {
    System.out.printf("  %s: %s%n", database, String.format(format, args));
  }

  static CacheTypes.Dialect dialectOf(SQLDialect dialect) {
    return dialect == SQLDialect.POSTGRES ? CacheTypes.Dialect.POSTGRES : CacheTypes.Dialect.MYSQL;
  }

  private static Connection connect(EmbeddedDatabase db) throws java.sql.SQLException {
    return db.dataSource().getConnection();
  }

  private static DSLContext jooq(Connection connection, SQLDialect dialect, DatabaseTime time) {
    return DSL.using(
        new DefaultConfiguration()
            .set(time.timed(connection))
            .set(dialect)
            .set(new DefaultTransactionListenerProvider(time.commitListener)));
  }

  /** The agent's listing after a claim: per kind BEGIN, every object, END. */
  private static void writeListing(SqlCacheWriter writer, List<ObjectChange> listing, int batch)
      throws Exception {
    Map<Kind, List<ObjectChange>> byKind = new LinkedHashMap<>();
    long sequence = 0;
    for (ObjectChange c : listing) {
      byKind.computeIfAbsent(c.getKind(), k -> new ArrayList<>()).add(c);
      sequence = Math.max(sequence, c.getSequence());
    }
    for (Map.Entry<Kind, List<ObjectChange>> kind : byKind.entrySet()) {
      String resyncId = "listing-" + kind.getKey().getKind();
      writer
          .commit(
              new SinkBatch(
                  ClusterWorkload.ACCOUNT,
                  List.of(marker(kind.getKey(), resyncId, ResyncPhase.RESYNC_PHASE_BEGIN, 0))))
          .toCompletableFuture()
          .get(5, TimeUnit.MINUTES);
      for (List<ObjectChange> changes : batches(kind.getValue(), batch)) {
        commit(writer, changes);
      }
      writer
          .commit(
              new SinkBatch(
                  ClusterWorkload.ACCOUNT,
                  List.of(marker(kind.getKey(), resyncId, ResyncPhase.RESYNC_PHASE_END, sequence))))
          .toCompletableFuture()
          .get(5, TimeUnit.MINUTES);
    }
  }

  private static SinkEntry marker(Kind kind, String resyncId, ResyncPhase phase, long sequence) {
    return new SinkEntry.Resync(
        ResyncMarker.newBuilder()
            .setAccount(ClusterWorkload.ACCOUNT)
            .setKind(kind)
            .setPhase(phase)
            .setResyncId(resyncId)
            .setSequence(sequence)
            .build());
  }

  private static void commit(SqlCacheWriter writer, List<ObjectChange> changes) throws Exception {
    List<SinkEntry> entries = new ArrayList<>(changes.size());
    for (ObjectChange c : changes) {
      entries.add(new SinkEntry.Change(c));
    }
    writer
        .commit(new SinkBatch(ClusterWorkload.ACCOUNT, entries))
        .toCompletableFuture()
        .get(5, TimeUnit.MINUTES);
  }

  /**
   * Feeds the writer what the raw upsert wrote, untimed, so the writer has seen the whole stream.
   */
  private static void catchUp(SqlCacheWriter writer, List<ObjectChange> changes, int batch)
      throws Exception {
    for (List<ObjectChange> b : batches(changes, batch)) {
      commit(writer, b);
    }
  }

  static <T> List<List<T>> batches(List<T> items, int size) {
    List<List<T>> batches = new ArrayList<>();
    for (int from = 0; from < items.size(); from += size) {
      batches.add(items.subList(from, Math.min(items.size(), from + size)));
    }
    return batches;
  }

  private static void apply(Map<String, byte[]> state, ObjectChange change) {
    String key = change.getKind().getKind() + "/" + change.getName();
    if (change.getType() == ChangeType.CHANGE_TYPE_DELETE) {
      state.remove(key);
    } else {
      state.put(key, change.getObjectJson().toByteArray());
    }
  }

  private static void clearCacheTables(DSLContext jooq, CacheTypes.Dialect dialect) {
    for (String table :
        tables(
            jooq,
            dialect,
            "lower(table_name) like 'cats_v1_%' and lower(table_name) not like '%template%'")) {
      jooq.execute("delete from " + table);
    }
  }

  /**
   * Refreshes the planner's statistics after a bulk load, as production databases do on their own
   * within a minute or so (PostgreSQL's autovacuum, InnoDB's automatic recalculation). Until then
   * PostgreSQL takes the freshly filled tables for empty: it read spinagent_objects by kind through
   * the listing-generation index, 2-8 ms a query instead of 0.1 ms by primary key.
   */
  static void analyze(DSLContext jooq, CacheTypes.Dialect dialect) {
    if (dialect == CacheTypes.Dialect.POSTGRES) {
      jooq.execute("analyze");
    } else {
      jooq.execute("analyze table " + String.join(", ", tables(jooq, dialect, "true")));
    }
  }

  private static List<String> tables(
      DSLContext jooq, CacheTypes.Dialect dialect, String condition) {
    String schema = dialect == CacheTypes.Dialect.POSTGRES ? "current_schema()" : "database()";
    return jooq.fetch(
            "select table_name from information_schema.tables where table_schema = "
                + schema
                + " and "
                + condition)
        .getValues(0, String.class);
  }

  // ------------------------------------------------------------------ report

  /**
   * What each side's connection spent in the database in one kind of run, and this JVM's pauses
   * while each ran.
   */
  private static void printTimes(
      String runs,
      DatabaseTime.Window writer,
      DatabaseTime.Window raw,
      GcPauses.Tally writerGc,
      GcPauses.Tally rawGc) {
    System.out.printf("in the %s runs, the writer's connection: %s%n", runs, writer.describe());
    System.out.printf(
        "  its statements per commit (mean time of one): %s%n", writer.describeStatements());
    System.out.printf("in the %s runs, the raw upsert's connection: %s%n", runs, raw.describe());
    System.out.printf(
        "  its statements per commit (mean time of one): %s%n", raw.describeStatements());
    System.out.printf(
        "in the %s runs, this JVM's garbage-collection pauses: while the writer ran %s; while the"
            + " raw upsert ran %s%n",
        runs, writerGc.describe(), rawGc.describe());
  }

  private static void print(Options options, int objects, double averageBytes, List<Figures> all) {
    System.out.printf(
        "%nSQL cache writer: one account of %,d objects (Deployments, ReplicaSets, Pods; %.1f KB of"
            + " JSON each on average)%n",
        objects, averageBytes / 1024);
    System.out.printf(
        "throughput: %,d changes in batches of %d, writer and raw upsert in turns batch by batch;"
            + " latency: %,d changes/s offered for %d s%n",
        options.changes(), options.batch(), options.rate(), options.seconds());
    System.out.printf(
        "the writer remembers the committed rows of up to %,d objects"
            + " (spinagent.cache.remembered-objects)%n",
        options.remembered());
    for (Figures f : all) {
      double cycleMillis = f.cycle().nanos() / 1e6;
      System.out.printf(
          "%n%s%n", f.database().equals("mariadb") ? "MariaDB (jOOQ MYSQL dialect)" : "PostgreSQL");
      System.out.printf(
          "%-40s %12s %12s %12s %14s%n", "", "writer", "raw upsert", "polling", "writer/raw");
      Throughput t = f.throughput();
      System.out.printf(
          "%-40s %12.0f %12.0f %12s %14.2f%n",
          "changes committed per second",
          t.writerRate(),
          t.rawRate(),
          "-",
          t.writerRate() / t.rawRate());
      System.out.printf(
          "%-40s %12.2f %12.2f %12s %14.2f%n",
          "SQL statements per change",
          t.writerStatementsPerChange(),
          t.rawStatementsPerChange(),
          "-",
          t.writerStatementsPerChange() / t.rawStatementsPerChange());
      System.out.printf(
          "%-40s %12.1f %12.1f %12.0f %14.2f%n",
          "latency p50 at offered rate (ms)",
          f.latency().writer().percentileMillis(50),
          f.latency().raw().percentileMillis(50),
          f.pollingLatency().percentileMillis(50),
          f.latency().writer().percentileMillis(50) / f.latency().raw().percentileMillis(50));
      System.out.printf(
          "%-40s %12.1f %12.1f %12.0f %14.2f%n",
          "latency p99 at offered rate (ms)",
          f.latency().writer().percentileMillis(99),
          f.latency().raw().percentileMillis(99),
          f.pollingLatency().percentileMillis(99),
          f.latency().writer().percentileMillis(99) / f.latency().raw().percentileMillis(99));
      printTimes("throughput", t.writerTime(), t.rawTime(), t.writerGc(), t.rawGc());
      LatencyRun l = f.latency();
      printTimes("latency", l.writerTime(), l.rawTime(), l.writerGc(), l.rawGc());
      if (f.belowCapacity() != null) {
        BelowCapacity b = f.belowCapacity();
        System.out.printf(
            "%-40s %12.1f %12.1f %12s %14.2f%n",
            "latency p50 at " + b.rate() + "/s (ms)",
            b.writer().percentileMillis(50),
            b.raw().percentileMillis(50),
            "-",
            b.writer().percentileMillis(50) / b.raw().percentileMillis(50));
        System.out.printf(
            "%-40s %12.1f %12.1f %12s %14.2f%n",
            "latency p99 at " + b.rate() + "/s (ms)",
            b.writer().percentileMillis(99),
            b.raw().percentileMillis(99),
            "-",
            b.writer().percentileMillis(99) / b.raw().percentileMillis(99));
        System.out.printf(
            "(the writer's capacity here, %.0f changes/s, is below the %d/s offered above: %d/s is"
                + " 70%% of it)%n",
            t.writerRate(), options.rate(), b.rate());
      }
      System.out.printf(
          "polling vs writer latency: p50 %.0f×, p99 %.0f× (polling cycles back to back)%n",
          f.pollingLatency().percentileMillis(50) / f.latency().writer().percentileMillis(50),
          f.pollingLatency().percentileMillis(99) / f.latency().writer().percentileMillis(99));
      System.out.printf(
          "polling cycle applying %,d changes: %,.0f ms; %,d rows read, %,d written, %,d deleted"
              + " (writer: %,.0f ms for the same number of changes)%n",
          f.cycleChanges(),
          cycleMillis,
          f.cycle().rowsRead(),
          f.cycle().rowsWritten(),
          f.cycle().rowsDeleted(),
          f.cycleChanges() / t.writerRate() * 1000);
      System.out.printf(
          "at Clouddriver's default 30 s poll interval: latency p50 ≈ %.1f s, p99 ≈ %.1f s%n",
          (15_000 + cycleMillis) / 1000, (29_700 + cycleMillis) / 1000);
      System.out.printf(
          "derivation alone (parse, derive, serialise, hash; done untimed for the raw upsert):"
              + " %,.0f changes/s%n",
          t.derivationRate());
      System.out.printf(
          "initial listing of %,d objects: writer %,.0f ms, polling's first cycle %,.0f ms%n",
          objects, f.listingMillis(), f.firstCycleMillis());
      System.out.printf(
          "host CPU (all cores, /proc/stat) and this JVM's JIT compilation: throughput runs %s;"
              + " latency runs %s%n",
          f.throughputCpu(), f.latencyCpu());
      System.out.printf(
          "warm-up before measuring, until a round spent under %.0f%% of its time compiling: %s%n",
          100 * SETTLED_JIT_SHARE,
          f.warmUps().stream()
              .map(WarmUp::toString)
              .collect(java.util.stream.Collectors.joining("; ")));
      if (f.fleet() != null) {
        f.fleet().print();
      }
    }
    System.out.println();
    System.out.println(
        "writer:     SqlCacheWriter.commit from call to completed transaction: parsing, derivation"
            + " (on the batch's thread and "
            + SqlWriterThreads.derivationHelpers()
            + " helper(s)), staleness check, relationship diff, bookkeeping; one batch per"
            + " transaction here (the account's batches come one at a time)");
    System.out.println(
        "raw upsert: the same body and relationship rows, multi-row jOOQ upserts, one transaction"
            + " per batch");
    System.out.println(
        "polling:    Clouddriver-style cycle: parse the full listing, derive all records, cats-sql"
            + " authoritative store");
  }
}
