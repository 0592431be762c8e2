package io.spinagent.benchmarks.sql;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.spinagent.benchmarks.HostCpu;
import io.spinagent.benchmarks.JitCompilation;
import io.spinagent.benchmarks.sql.OpenLoop.Latencies;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.sql.SqlCacheWriter;
import io.spinagent.plugin.cache.sql.SqlWriterSettings;
import io.spinagent.plugin.cache.sql.SqlWriterThreads;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.testkit.db.EmbeddedDatabase;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;

/**
 * The writer fed by a fleet (issue 17): {@code --fleet-accounts} accounts of {@code
 * --fleet-objects} objects each, the offered rate spread over them ({@link FleetLatency}), against
 * one account holding as many objects in all at the same total rate, through the same writer with
 * {@code --writer-threads} (the plugin's default unless given), each transaction on a connection of
 * its own (as Clouddriver's pool gives them). Rounds alternate which side goes first, after a
 * warm-up.
 */
final class FleetPhase {

  private static final int ROUNDS = 4;
  private static final int MAX_WARM_UP_ROUNDS = 10;

  /**
   * @param fleet latencies with the rate spread over {@code accounts} accounts
   * @param single latencies with the same rate from one account
   */
  record Figures(
      int accounts,
      int objectsPerAccount,
      int rate,
      int writerThreads,
      Latencies fleet,
      Latencies single,
      int fleetBatches,
      int singleBatches,
      int failedCommits,
      double listingMillis,
      SqlCacheWriterBenchmark.WarmUp warmUp,
      String cpu) {

    /** The figures, as the benchmark's report prints them. */
    void print() {
      System.out.printf(
          "fleet: %,d changes/s offered for %d s spread over %,d accounts of %,d objects, against"
              + " one account of %,d objects at the same rate (writer threads: %d)%n",
          rate(),
          fleet().count() / Math.max(1, rate()),
          accounts(),
          objectsPerAccount(),
          accounts() * objectsPerAccount(),
          writerThreads());
      System.out.printf(
          "%-40s %12s %12s %14s%n", "", accounts() + " accounts", "one account", "fleet/one");
      for (int p : new int[] {50, 99}) {
        System.out.printf(
            "%-40s %12.1f %12.1f %14.2f%n",
            "latency p" + p + " (ms)",
            fleet().percentileMillis(p),
            single().percentileMillis(p),
            fleet().percentileMillis(p) / single().percentileMillis(p));
      }
      System.out.printf("%-40s %12d %12d%n", "batches committed", fleetBatches(), singleBatches());
      System.out.printf(
          "fleet listing (one batch per account, all at once): %,.0f ms; failed commits (sent"
              + " again): %d; warm-up: %s; host CPU: %s%n",
          listingMillis(), failedCommits(), warmUp(), cpu());
    }
  }

  private FleetPhase() {}

  static Figures run(
      String database, EmbeddedDatabase db, SQLDialect dialect, SqlCacheWriterBenchmark.Options o)
      throws Exception {
    int writerThreads = o.writerThreads();
    int accounts = o.fleetAccounts();
    try (ConnectionPool pool = new ConnectionPool(db, writerThreads);
        SqlWriterThreads threads = new SqlWriterThreads(writerThreads)) {
      DSLContext jooq = DSL.using(new DefaultConfiguration().set(pool).set(dialect));
      ChangeSink writer = writer(jooq, threads, o);
      List<String> names = new ArrayList<>();
      List<ClusterWorkload> fleet = new ArrayList<>();
      for (int a = 0; a < accounts; a++) {
        names.add(String.format("fleet-%04d", a));
        fleet.add(new ClusterWorkload(o.fleetObjects(), 1_000 + a));
      }
      ClusterWorkload single = new ClusterWorkload(accounts * o.fleetObjects(), 7);

      long listingStart = System.nanoTime();
      List<CompletableFuture<?>> listed = new ArrayList<>();
      for (int a = 0; a < accounts; a++) {
        listed.add(
            untilCommitted(
                writer, new SinkBatch(names.get(a), listing(fleet.get(a).listing(), 0))));
      }
      CompletableFuture.allOf(listed.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
      double listingMillis = (System.nanoTime() - listingStart) / 1e6;
      SqlCacheWriterBenchmark.progress(
          database,
          "fleet: %,d accounts listed (%,d objects each) in %.0f ms",
          accounts,
          o.fleetObjects(),
          listingMillis);
      for (List<ObjectChange> part : SqlCacheWriterBenchmark.batches(single.listing(), o.batch())) {
        writer
            .commit(new SinkBatch("single", part.stream().map(FleetPhase::entry).toList()))
            .toCompletableFuture()
            .get(5, TimeUnit.MINUTES);
      }
      SqlCacheWriterBenchmark.analyze(jooq, SqlCacheWriterBenchmark.dialectOf(dialect));

      int perAccount = Math.max(1, o.rate() * o.seconds() / ROUNDS / accounts);
      SqlCacheWriterBenchmark.WarmUp warmUp =
          SqlCacheWriterBenchmark.untilJitSettles(
              database,
              "fleet latency",
              MAX_WARM_UP_ROUNDS,
              () -> {
                round(writer, names, fleet, perAccount, o, new Latencies(accounts * perAccount));
                round(
                    writer,
                    List.of("single"),
                    List.of(single),
                    accounts * perAccount,
                    o,
                    new Latencies(accounts * perAccount));
              });
      Latencies fleetLatencies = new Latencies(ROUNDS * accounts * perAccount);
      Latencies singleLatencies = new Latencies(ROUNDS * accounts * perAccount);
      int fleetBatches = 0;
      int singleBatches = 0;
      int failed = 0;
      HostCpu.Ticks cpu = HostCpu.now();
      long jit = JitCompilation.millis();
      for (int r = 0; r < ROUNDS; r++) {
        for (boolean fleetTurn :
            r % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
          FleetLatency.Result result =
              fleetTurn
                  ? round(writer, names, fleet, perAccount, o, fleetLatencies)
                  : round(
                      writer,
                      List.of("single"),
                      List.of(single),
                      accounts * perAccount,
                      o,
                      singleLatencies);
          failed += result.failedCommits();
          if (fleetTurn) {
            fleetBatches += result.batches();
          } else {
            singleBatches += result.batches();
          }
        }
      }
      String cpuFigures = HostCpu.since(cpu) + "; " + JitCompilation.since(jit);
      SqlCacheWriterBenchmark.progress(
          database,
          "fleet latency at %d/s: %,d accounts p99 %.1f ms, one account p99 %.1f ms (%s)",
          o.rate(),
          accounts,
          fleetLatencies.percentileMillis(99),
          singleLatencies.percentileMillis(99),
          cpuFigures);
      return new Figures(
          accounts,
          o.fleetObjects(),
          o.rate(),
          writerThreads,
          fleetLatencies,
          singleLatencies,
          fleetBatches,
          singleBatches,
          failed,
          listingMillis,
          warmUp,
          cpuFigures);
    }
  }

  /** Commits the batch, sending it again after a failure, as the account's pipeline would. */
  private static CompletableFuture<Void> untilCommitted(ChangeSink writer, SinkBatch batch) {
    return writer
        .commit(batch)
        .toCompletableFuture()
        .handle((outcome, error) -> error)
        .thenCompose(
            error ->
                error == null
                    ? CompletableFuture.completedFuture(null)
                    : untilCommitted(writer, batch));
  }

  /** One round: {@code perAccount} changes of every account, spread at the offered rate. */
  private static FleetLatency.Result round(
      ChangeSink writer,
      List<String> names,
      List<ClusterWorkload> workloads,
      int perAccount,
      SqlCacheWriterBenchmark.Options o,
      Latencies into)
      throws InterruptedException {
    List<FleetLatency.Account> accounts = new ArrayList<>();
    for (int a = 0; a < names.size(); a++) {
      accounts.add(new FleetLatency.Account(names.get(a), workloads.get(a).changes(perAccount)));
    }
    FleetLatency.Result result = FleetLatency.run(writer, accounts, o.rate(), o.batch());
    into.addAll(result.latencies());
    return result;
  }

  private static ChangeSink writer(
      DSLContext jooq, SqlWriterThreads threads, SqlCacheWriterBenchmark.Options o) {
    return new SqlCacheWriter(
        jooq,
        SqlWriterSettings.defaults(o.remembered()),
        account -> FormatOptions.DEFAULTS,
        threads,
        new SimpleMeterRegistry(),
        Clock.systemUTC());
  }

  /** An account's complete listing in one batch: per kind BEGIN, its objects, END. */
  private static List<SinkEntry> listing(List<ObjectChange> objects, long sequence) {
    Map<Kind, List<ObjectChange>> byKind = new LinkedHashMap<>();
    objects.forEach(c -> byKind.computeIfAbsent(c.getKind(), k -> new ArrayList<>()).add(c));
    List<SinkEntry> entries = new ArrayList<>();
    byKind.forEach(
        (kind, changes) -> {
          entries.add(marker(kind, ResyncPhase.RESYNC_PHASE_BEGIN, sequence));
          changes.forEach(c -> entries.add(entry(c)));
          entries.add(marker(kind, ResyncPhase.RESYNC_PHASE_END, sequence));
        });
    return entries;
  }

  private static SinkEntry entry(ObjectChange change) {
    return new SinkEntry.Change(change);
  }

  private static SinkEntry marker(Kind kind, ResyncPhase phase, long sequence) {
    return new SinkEntry.Resync(
        ResyncMarker.newBuilder()
            .setKind(kind)
            .setPhase(phase)
            .setResyncId("listing-" + kind.getKind())
            .setSequence(sequence)
            .build());
  }
}
