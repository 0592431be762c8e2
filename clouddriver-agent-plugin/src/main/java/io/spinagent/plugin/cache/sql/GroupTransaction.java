package io.spinagent.plugin.cache.sql;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.protocol.v1.ObjectChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jooq.DSLContext;

/**
 * One attempt at committing a group's work — batches of many accounts, or one account's purge — in
 * one transaction. The order of the transaction is written here, once, for all its accounts:
 *
 * <ol>
 *   <li>the relationship index of an account new to this process, or claimed since, is rebuilt from
 *       its bodies ({@link IndexRebuild}); what the group's objects hold is read up front: their
 *       spinagent_objects rows and their relationship rows, one query each per 500 objects of all
 *       accounts (except what {@link CommittedRows} remembers);
 *   <li>each account's entries are applied in stream order ({@link AccountWork}), queueing rows;
 *       while the derivation of the next objects is behind, queued bodies are written meanwhile;
 *   <li>the queued spinagent_objects rows are written;
 *   <li>clusters written are linked to their applications, then the logical rows nothing links any
 *       more are deleted ({@link LogicalRows});
 *   <li>the queued relationship rows, then bodies, then resume points are written.
 * </ol>
 *
 * Reads of a table see the rows queued for it: each part writes its queue before it reads (a sweep
 * writes spinagent_objects first, the logical rows' checks the relationship rows).
 */
final class GroupTransaction {

  /**
   * Body rows queued worth a statement while derivation is behind: large enough to keep statements
   * few, small enough that writing starts well before derivation ends. Only bodies are written
   * early: they are most of the database's time, while relationship and spinagent_objects rows are
   * small and, written early, cost one more statement per table for little overlap.
   */
  private static final int ROWS_TO_FLUSH_WHILE_DERIVING = 100;

  /** What transactions share, for the writer's lifetime. */
  record Shared(
      CacheTables tables,
      CachedKinds kinds,
      CommittedRows committed,
      ObjectVersions.UpsertSql objectsUpsert,
      BodyRows.UpsertSql bodiesUpsert,
      RelationshipRows.InsertSql relationshipsInsert,
      ResumePointTable resumePoints,
      ObjectMapper mapper) {}

  /** This transaction's parts, which an account's work queues its rows with. */
  record Parts(
      CacheTables tables,
      CachedKinds kinds,
      ObjectVersions versions,
      BodyRows bodies,
      RelationshipRows relationships,
      LogicalRows logical,
      List<Derivation.Reason> refusals) {}

  private final Shared shared;
  private final List<Work> group;
  private final Function<String, AccountMemory> states;
  private final long now;
  private final RowTally tally = new RowTally();
  private final List<Derivation.Reason> refusals = new ArrayList<>();
  private final List<AccountWork> works = new ArrayList<>();
  private ObjectVersions versions;
  private RelationshipRows relationships;

  GroupTransaction(
      Shared shared, List<Work> group, Function<String, AccountMemory> states, long now) {
    this.shared = shared;
    this.group = group;
    this.states = states;
    this.now = now;
  }

  /** Runs the transaction's statements on {@code ctx}, which commits them when this returns. */
  void run(DSLContext ctx) {
    versions = new ObjectVersions(ctx, shared.objectsUpsert(), shared.committed(), now, tally);
    relationships =
        new RelationshipRows(
            ctx, shared.relationshipsInsert(), shared.tables(), shared.committed(), now, tally);
    BodyRows bodies = new BodyRows(ctx, shared.bodiesUpsert(), now, tally);
    LogicalRows logical =
        new LogicalRows(ctx, shared.tables(), bodies, relationships, shared.mapper(), now);
    Parts parts =
        new Parts(
            shared.tables(), shared.kinds(), versions, bodies, relationships, logical, refusals);
    for (Work work : group) {
      FormatOptions options =
          work instanceof Work.Batch batch ? batch.options() : FormatOptions.DEFAULTS;
      works.add(new AccountWork(states.apply(work.account()), options, parts));
    }

    // 1. the relationship indexes that cannot be trusted, rebuilt; what the group's objects hold
    List<AccountWork> untrusted = new ArrayList<>();
    for (int w = 0; w < group.size(); w++) {
      if (group.get(w) instanceof Work.Batch && !works.get(w).indexTrusted()) {
        untrusted.add(works.get(w));
      }
    }
    new IndexRebuild(ctx, shared.tables(), shared.kinds(), shared.mapper()).rebuild(untrusted);
    Map<ObjectVersions.Key, CommittedRows.Scope> objects = new LinkedHashMap<>();
    Map<String, RelationshipRows.Wanted> objectRows = new LinkedHashMap<>();
    forEachChange(
        (work, change) -> {
          String type = CacheTables.typeOf(change.getKind());
          ObjectVersions.Key key = work.objectKey(change);
          if (key != null && shared.kinds().caches(type)) {
            objects.put(key, work.scope());
            objectRows.put(
                CacheKeys.infrastructure(
                    type, work.account(), change.getNamespace(), change.getName()),
                new RelationshipRows.Wanted(type, work.scope()));
          }
        });
    versions.prefetch(objects);
    relationships.prefetch(objectRows);

    // 2. each account's entries, in stream order
    for (int w = 0; w < group.size(); w++) {
      AccountWork work = works.get(w);
      if (group.get(w) instanceof Work.Batch batch) {
        List<SinkEntry> entries = batch.entries();
        for (int i = 0; i < entries.size(); i++) {
          SinkEntry entry = entries.get(i);
          if (entry instanceof SinkEntry.Change c) {
            if (!batch.isDerived(i) && bodies.queued() >= ROWS_TO_FLUSH_WHILE_DERIVING) {
              bodies.flush(); // the database writes them while the helpers derive what comes next
            }
            work.change(c.change(), batch.derived(i));
          } else if (entry instanceof SinkEntry.Resync r) {
            work.marker(r.marker());
          } else if (entry instanceof SinkEntry.Progress p) {
            work.progress(p.progress());
          }
        }
      } else {
        work.purge();
      }
    }

    // 3. spinagent_objects
    versions.flush();

    // 4. logical rows
    logical.linkClusters();
    logical.settle();

    // 5. relationship rows, bodies, resume points
    relationships.flush();
    bodies.flush();
    writeResumePoints(ctx);
  }

  /**
   * After the commit: each account's state becomes what the transaction left, its rows are
   * remembered for its next batch; each work's outcome, in the group's order.
   */
  List<CommitOutcome> committed() {
    Map<String, CommittedRows.Scope> scopes = new LinkedHashMap<>();
    for (AccountWork work : works) {
      work.install();
      scopes.put(work.account(), work.scope());
    }
    versions.remember(scopes, scope -> states.apply(scope.account()).isCurrent(scope));
    relationships.remember(scope -> states.apply(scope.account()).isCurrent(scope));
    List<CommitOutcome> outcomes = new ArrayList<>();
    works.forEach(work -> outcomes.add(work.outcome()));
    return outcomes;
  }

  RowTally tally() {
    return tally;
  }

  List<Derivation.Reason> refusals() {
    return refusals;
  }

  int unchangedObjects() {
    return works.stream().mapToInt(AccountWork::unchangedObjects).sum();
  }

  private void writeResumePoints(DSLContext ctx) {
    List<ResumePointTable.Point> written = new ArrayList<>();
    List<ResumePointTable.KindOf> deleted = new ArrayList<>();
    for (AccountWork work : works) {
      if (work.purged()) {
        shared.resumePoints().deleteAccount(ctx, work.account(), tally);
      }
      for (AccountWork.ResumeChange change : work.resumeChanges()) {
        if (change.progress() == null) {
          deleted.add(ResumePointTable.KindOf.of(work.account(), change.kind()));
        } else {
          written.add(new ResumePointTable.Point(work.account(), change.progress()));
        }
      }
    }
    shared.resumePoints().delete(ctx, deleted, tally);
    shared.resumePoints().write(ctx, written, now, tally);
  }

  private interface ChangeVisitor {
    void visit(AccountWork work, ObjectChange change);
  }

  private void forEachChange(ChangeVisitor visitor) {
    for (int w = 0; w < group.size(); w++) {
      if (group.get(w) instanceof Work.Batch batch) {
        for (SinkEntry entry : batch.entries()) {
          if (entry instanceof SinkEntry.Change c) {
            visitor.visit(works.get(w), c.change());
          }
        }
      }
    }
  }
}
