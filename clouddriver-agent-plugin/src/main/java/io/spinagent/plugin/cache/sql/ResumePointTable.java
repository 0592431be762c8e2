package io.spinagent.plugin.cache.sql;

import static io.spinagent.plugin.cache.sql.Columns.ACCOUNT;
import static io.spinagent.plugin.cache.sql.Columns.API_GROUP;
import static io.spinagent.plugin.cache.sql.Columns.API_VERSION;
import static io.spinagent.plugin.cache.sql.Columns.COMMITTED_AT;
import static io.spinagent.plugin.cache.sql.Columns.KIND;
import static io.spinagent.plugin.cache.sql.Columns.NAMESPACED;
import static io.spinagent.plugin.cache.sql.Columns.PLURAL;
import static io.spinagent.plugin.cache.sql.Columns.PROGRESS_SEQUENCE;
import static io.spinagent.plugin.cache.sql.Columns.RESOURCE_VERSION;
import static io.spinagent.plugin.cache.sql.Columns.proposed;
import static io.spinagent.plugin.cache.sql.Columns.table;

import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ResumePoint;
import io.spinagent.protocol.v1.WatchProgress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * {@code spinagent_resume_points}: the last committed {@link WatchProgress} of each account and
 * kind, written in the transaction of the batch that carried it, read for many accounts at once
 * when agents connect.
 */
final class ResumePointTable implements ResumePoints {

  static final String TABLE = "spinagent_resume_points";

  // column sizes (db/spinagent/changelog.yml)
  private static final int MAX_VERSION = 63;
  private static final int MAX_PLURAL = 253;

  /** An account's kind, as the table's primary key names it. */
  record KindOf(String account, String group, String kind) {
    static KindOf of(String account, Kind kind) {
      return new KindOf(account, kind.getGroup(), kind.getKind());
    }
  }

  /** A progress of an account to store. */
  record Point(String account, WatchProgress progress) {}

  private final DSLContext jooq;
  private final CacheTypes.Dialect dialect;

  ResumePointTable(DSLContext jooq) {
    this.jooq = jooq;
    this.dialect = CacheTables.dialectOf(jooq.dialect());
  }

  /** Whether the table's columns hold this progress (a kind too long for them is never resumed). */
  static boolean fits(String account, WatchProgress progress) {
    Kind kind = progress.getKind();
    return account.length() <= ObjectVersions.MAX_ACCOUNT
        && kind.getGroup().length() <= ObjectVersions.MAX_GROUP
        && kind.getKind().length() <= ObjectVersions.MAX_KIND
        && kind.getVersion().length() <= MAX_VERSION
        && kind.getPlural().length() <= MAX_PLURAL
        && progress.getResourceVersion().length() <= ObjectVersions.MAX_RESOURCE_VERSION;
  }

  @Override
  public Map<String, List<ResumePoint>> of(Collection<String> accounts) {
    Map<String, List<ResumePoint>> points = new TreeMap<>();
    for (List<String> chunk : Chunks.of(new LinkedHashSet<>(accounts))) {
      jooq.select(
              ACCOUNT,
              API_GROUP,
              API_VERSION,
              KIND,
              PLURAL,
              NAMESPACED,
              RESOURCE_VERSION,
              COMMITTED_AT)
          .from(table(TABLE))
          .where(ACCOUNT.in(chunk))
          .fetch()
          .forEach(
              r ->
                  points
                      .computeIfAbsent(r.value1(), a -> new ArrayList<>())
                      .add(
                          ResumePoint.newBuilder()
                              .setKind(
                                  Kind.newBuilder()
                                      .setGroup(r.value2())
                                      .setVersion(r.value3())
                                      .setKind(r.value4())
                                      .setPlural(r.value5())
                                      .setNamespaced(Boolean.TRUE.equals(r.value6())))
                              .setResourceVersion(r.value7())
                              .setCommittedAtMillis(r.value8())
                              .build()));
    }
    return points;
  }

  /** Stores these progresses, the last of each account and kind. */
  void write(DSLContext ctx, Collection<Point> points, long now, RowTally tally) {
    for (List<Point> chunk : Chunks.of(points)) {
      var insert =
          ctx.insertInto(
              table(TABLE),
              ACCOUNT,
              API_GROUP,
              KIND,
              API_VERSION,
              PLURAL,
              NAMESPACED,
              RESOURCE_VERSION,
              PROGRESS_SEQUENCE,
              COMMITTED_AT);
      for (Point p : chunk) {
        Kind kind = p.progress().getKind();
        insert =
            insert.values(
                p.account(),
                kind.getGroup(),
                kind.getKind(),
                kind.getVersion(),
                kind.getPlural(),
                kind.getNamespaced(),
                p.progress().getResourceVersion(),
                p.progress().getSequence(),
                now);
      }
      insert
          .onConflict(ACCOUNT, API_GROUP, KIND)
          .doUpdate()
          .set(API_VERSION, proposed(API_VERSION, dialect))
          .set(PLURAL, proposed(PLURAL, dialect))
          .set(NAMESPACED, proposed(NAMESPACED, dialect))
          .set(RESOURCE_VERSION, proposed(RESOURCE_VERSION, dialect))
          .set(PROGRESS_SEQUENCE, proposed(PROGRESS_SEQUENCE, dialect))
          .set(COMMITTED_AT, proposed(COMMITTED_AT, dialect))
          .execute();
      tally.add(RowTally.Table.RESUME_POINT, RowTally.Operation.WRITE, chunk.size());
    }
  }

  /** Deletes the resume points of these kinds. */
  void delete(DSLContext ctx, Collection<KindOf> kinds, RowTally tally) {
    for (List<KindOf> chunk : Chunks.of(kinds)) {
      List<Condition> conditions = new ArrayList<>();
      chunk.forEach(
          k ->
              conditions.add(
                  ACCOUNT.eq(k.account()).and(API_GROUP.eq(k.group())).and(KIND.eq(k.kind()))));
      int deleted = ctx.deleteFrom(table(TABLE)).where(DSL.or(conditions)).execute();
      tally.add(RowTally.Table.RESUME_POINT, RowTally.Operation.DELETE, deleted);
    }
  }

  /** Deletes every resume point of the account. */
  void deleteAccount(DSLContext ctx, String account, RowTally tally) {
    int deleted = ctx.deleteFrom(table(TABLE)).where(ACCOUNT.eq(account)).execute();
    tally.add(RowTally.Table.RESUME_POINT, RowTally.Operation.DELETE, deleted);
  }
}
