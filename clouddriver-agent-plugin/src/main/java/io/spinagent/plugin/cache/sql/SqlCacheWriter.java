package io.spinagent.plugin.cache.sql;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.protocol.v1.Kind;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ChangeSink} that writes agent streams into Clouddriver's SQL cache ({@code
 * cats_v1_<type>} bodies and {@code cats_v1_<type>_rel} relationship rows) on MySQL/MariaDB and
 * PostgreSQL, the batches of many accounts that arrive close together in one transaction.
 *
 * <p>Its parts, each testable alone: {@link GroupCommitter} (grouping, isolation, one outcome per
 * batch), {@link GroupTransaction} (the order of a transaction), {@link AccountWork} (the rules,
 * entry by entry), {@link ObjectVersions}, {@link BodyRows}, {@link RelationshipRows} and {@link
 * LogicalRows} (the rows of each table, queued and written as multi-row statements of many
 * accounts), {@link Derivation} (each object on its own, on helper threads), {@link CacheTables},
 * {@link ResumePointTable} and {@link WriterMetrics}. This class wires them together and follows
 * the accounts' lifecycle.
 */
public final class SqlCacheWriter implements ChangeSink, AccountLifecycleListener {

  private static final Logger log = LoggerFactory.getLogger(SqlCacheWriter.class);

  private final DSLContext jooq;
  private final CacheTables tables;
  private final CachedKinds kinds;
  private final Function<String, FormatOptions> accountOptions;
  private final Clock clock;
  private final ResumePointTable resumePoints;
  private final Derivation derivation;
  private final GroupTransaction.Shared shared;
  private final WriterMetrics metrics;
  private final GroupCommitter committer;
  private final Map<String, AccountMemory> accounts = new ConcurrentHashMap<>();
  private final Map<String, AccountState> latestStates = new ConcurrentHashMap<>();

  /**
   * @param accountOptions per-account settings (onlySpinnakerManaged, …); the kind filter is the
   *     settings' {@link CachedKinds}, so their cachedTypes are ignored
   * @param threads the committers (as many groups at a time as it has) and derivation helpers
   */
  public SqlCacheWriter(
      DSLContext jooq,
      SqlWriterSettings settings,
      Function<String, FormatOptions> accountOptions,
      SqlWriterThreads threads,
      MeterRegistry meters,
      Clock clock) {
    this.jooq = jooq;
    this.tables = new CacheTables(jooq, settings.tableNamespace());
    this.kinds = settings.kinds();
    this.accountOptions = accountOptions;
    this.clock = clock;
    this.resumePoints = new ResumePointTable(jooq);
    ObjectMapper mapper = new ObjectMapper();
    this.derivation = new Derivation(kinds, mapper, threads.derivation());
    this.shared =
        new GroupTransaction.Shared(
            tables,
            kinds,
            new CommittedRows(settings.rememberedObjects()),
            new ObjectVersions.UpsertSql(jooq),
            new BodyRows.UpsertSql(jooq),
            new RelationshipRows.InsertSql(jooq),
            resumePoints,
            mapper);
    this.metrics = new WriterMetrics(meters);
    this.committer =
        new GroupCommitter(
            new Transactions(), threads.committers(), threads.writerThreads(), metrics);
  }

  /** Table names and the {@code agent} values of the rows this writer writes. */
  public CacheTables tables() {
    return tables;
  }

  /** The resume points this writer stores with the batches that carry progress. */
  public ResumePoints resumePoints() {
    return resumePoints;
  }

  @Override
  public CompletionStage<CommitOutcome> commit(SinkBatch batch) {
    Work.Batch work = new Work.Batch(batch);
    committer.submit(work);
    return work.result();
  }

  /**
   * A stream claimed the account, or it is no longer served here: its remembered rows and listings
   * in progress are dropped. An account that is gone (removed, deleted) or switched off loses its
   * rows, so Deck stops showing it; switched on again, its agent's complete listing brings them
   * back.
   */
  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    String name = account.name();
    latestStates.put(name, account.state());
    if (account.state() == AccountState.ACTIVATING || !account.state().isServed()) {
      AccountMemory memory = accounts.get(name);
      if (memory != null) {
        memory.claimed();
      }
    }
    if (account.state() == AccountState.REMOVED || account.state() == AccountState.INACTIVE) {
      AccountState purgedFor = account.state();
      Work.Purge purge =
          new Work.Purge(
              name, () -> latestStates.get(name) == purgedFor, new CompletableFuture<>());
      // The callback logs a failed purge and cannot throw itself: nothing is lost with the future.
      CompletableFuture<?> unused =
          purge
              .result()
              .whenComplete(
                  (outcome, error) -> {
                    if (error != null) {
                      log.error(
                          "Account '{}' ({}): removing its cache rows failed; they stay until it is"
                              + " served and listed again, or removed again",
                          name,
                          purgedFor,
                          error);
                    } else if (purgedFor == AccountState.REMOVED) {
                      latestStates.remove(name, AccountState.REMOVED);
                    }
                  });
      committer.submit(purge);
    }
  }

  private AccountMemory memory(String account) {
    return accounts.computeIfAbsent(account, AccountMemory::new);
  }

  /** The writer's side of group commit. */
  private final class Transactions implements GroupCommitter.Transactions {

    @Override
    public void prepare(List<Work> group) {
      List<Derivation.Item> items = new ArrayList<>();
      List<Work.Batch> started = new ArrayList<>();
      Set<String> types =
          new LinkedHashSet<>(List.of(CacheTypes.APPLICATIONS, CacheTypes.CLUSTERS));
      for (Work work : group) {
        if (work instanceof Work.Batch batch && !batch.isStarted()) {
          FormatOptions options = accountOptions.apply(batch.account()).withCachedTypes(null);
          started.add(batch);
          for (SinkEntry entry : batch.entries()) {
            items.add(new Derivation.Item(batch.account(), options, entry));
            Kind kind = kindOf(entry);
            if (kind != null && kinds.caches(CacheTables.typeOf(kind))) {
              types.add(CacheTables.typeOf(kind));
            }
          }
        }
      }
      if (!started.isEmpty()) {
        // started before the DDL and the up-front queries, whose round trips it overlaps
        ParallelBatch<Derivation.Item, Derivation.Derived> derived =
            derivation.start(items, clock.millis());
        int offset = 0;
        for (Work.Batch batch : started) {
          batch.started(items.get(offset).options(), derived, offset);
          offset += batch.entries().size();
        }
      }
      tables.create(types);
    }

    @Override
    public List<CommitOutcome> commit(List<Work> group) {
      if (group.size() == 1
          && group.get(0) instanceof Work.Purge purge
          && !purge.wanted().getAsBoolean()) {
        return List.of(CommitOutcome.STORED); // served again since: its listing is the truth now
      }
      long start = System.nanoTime();
      GroupTransaction transaction =
          new GroupTransaction(shared, group, SqlCacheWriter.this::memory, clock.millis());
      jooq.transaction(configuration -> transaction.run(DSL.using(configuration)));
      List<CommitOutcome> outcomes = transaction.committed();
      long committedAt = clock.millis();
      int changes = 0;
      for (Work work : group) {
        if (work instanceof Work.Batch batch) {
          for (SinkEntry entry : batch.entries()) {
            if (entry instanceof SinkEntry.Change c) {
              changes++;
              long observed = c.change().getObservedAtMillis();
              if (observed > 0) {
                metrics.changeLatency(committedAt - observed);
              }
            }
          }
        } else {
          accounts.remove(work.account());
          log.info("Account '{}': removed its rows from Clouddriver's cache", work.account());
        }
      }
      metrics.committed(group.size(), changes, System.nanoTime() - start, transaction.tally());
      transaction.refusals().forEach(metrics::refused);
      metrics.unchanged(transaction.unchangedObjects());
      return outcomes;
    }

    @Override
    public boolean failed(List<Work> group, RuntimeException failure) {
      // the transaction may or may not have committed: what was remembered may be wrong now
      group.forEach(work -> memory(work.account()).forgetCommittedRows());
      CacheTables.MissingTables missing = CacheTables.MissingTables.in(failure);
      if (missing == null) {
        return false;
      }
      tables.create(missing.types());
      return true;
    }

    private Kind kindOf(SinkEntry entry) {
      if (entry instanceof SinkEntry.Change c) {
        return c.change().getKind();
      }
      if (entry instanceof SinkEntry.Resync r) {
        return r.marker().getKind();
      }
      return null; // progress names no table
    }
  }
}
