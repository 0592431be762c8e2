package io.spinagent.plugin.cache.sql;

import static io.spinagent.plugin.cache.sql.Columns.AGENT;
import static io.spinagent.plugin.cache.sql.Columns.APPLICATION;
import static io.spinagent.plugin.cache.sql.Columns.BODY;
import static io.spinagent.plugin.cache.sql.Columns.BODY_HASH;
import static io.spinagent.plugin.cache.sql.Columns.ID;
import static io.spinagent.plugin.cache.sql.Columns.LAST_UPDATED;
import static io.spinagent.plugin.cache.sql.Columns.proposed;
import static io.spinagent.plugin.cache.sql.Columns.table;

import io.spinagent.plugin.cache.format.CacheTypes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Body rows ({@code cats_v1_<type>}) to write and delete in one transaction, of any accounts: each
 * row carries its {@code agent} value, so that one multi-row statement holds many accounts' rows. A
 * later write or delete of the same row replaces the queued one.
 */
final class BodyRows {

  /** A body row to write. */
  record Body(String agent, String id, String application, String hash, String body) {}

  /** A row's primary key. */
  private record RowKey(String agent, String id) {}

  private final DSLContext ctx;
  private final CacheTypes.Dialect dialect;
  private final long now;
  private final RowTally tally;

  /** table → row key → body to write, or null to delete */
  private final Map<String, Map<RowKey, Body>> pending = new TreeMap<>();

  /** Rows queued since the last {@link #flush} (an estimate: a row may be queued twice). */
  private int queued;

  BodyRows(DSLContext ctx, CacheTypes.Dialect dialect, long now, RowTally tally) {
    this.ctx = ctx;
    this.dialect = dialect;
    this.now = now;
    this.tally = tally;
  }

  void write(String table, Body body) {
    queued++;
    pending
        .computeIfAbsent(table, t -> new LinkedHashMap<>())
        .put(new RowKey(body.agent(), body.id()), body);
  }

  void delete(String table, String agent, String id) {
    pending.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(new RowKey(agent, id), null);
  }

  int queued() {
    return queued;
  }

  /**
   * The queued rows: per table, multi-row deletes (each id with its agent) and multi-row upserts,
   * split by {@link Chunks}.
   */
  void flush() {
    pending.forEach(
        (name, rows) -> {
          Table<Record> t = table(name);
          List<RowKey> deletes = new ArrayList<>();
          List<Body> writes = new ArrayList<>();
          rows.forEach(
              (key, body) -> {
                if (body == null) {
                  deletes.add(key);
                } else {
                  writes.add(body);
                }
              });
          for (List<RowKey> chunk : Chunks.of(deletes)) {
            ctx.deleteFrom(t).where(byAgent(chunk)).execute();
            tally.add(RowTally.Table.BODY, RowTally.Operation.DELETE, chunk.size());
          }
          for (List<Body> chunk : Chunks.of(writes, b -> b.body().length())) {
            var insert = ctx.insertInto(t, ID, AGENT, APPLICATION, BODY_HASH, BODY, LAST_UPDATED);
            for (Body b : chunk) {
              insert = insert.values(b.id(), b.agent(), b.application(), b.hash(), b.body(), now);
            }
            insert
                .onConflict(ID, AGENT)
                .doUpdate()
                .set(APPLICATION, proposed(APPLICATION, dialect))
                .set(BODY_HASH, proposed(BODY_HASH, dialect))
                .set(BODY, proposed(BODY, dialect))
                .set(LAST_UPDATED, proposed(LAST_UPDATED, dialect))
                .execute();
            tally.add(RowTally.Table.BODY, RowTally.Operation.WRITE, chunk.size());
          }
        });
    pending.clear();
    queued = 0;
  }

  /** {@code (agent = ? AND id IN (…)) OR …}: each agent's ids through the primary key. */
  private static Condition byAgent(List<RowKey> rows) {
    Map<String, List<String>> idsByAgent = new LinkedHashMap<>();
    rows.forEach(r -> idsByAgent.computeIfAbsent(r.agent(), a -> new ArrayList<>()).add(r.id()));
    List<Condition> conditions = new ArrayList<>();
    idsByAgent.forEach((agent, ids) -> conditions.add(AGENT.eq(agent).and(ID.in(ids))));
    return DSL.or(conditions);
  }
}
