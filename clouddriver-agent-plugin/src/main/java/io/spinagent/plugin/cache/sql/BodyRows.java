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
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.conf.ParamType;
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

  /**
   * Each body table's multi-row upsert, its SQL rendered by jOOQ once per table ({@link
   * RepeatedRowsSql}) with a placeholder for each of the six values of a row, in the order {@link
   * #flush} binds them: id, agent, application, body_hash, body, last_updated.
   */
  static final class UpsertSql {
    private final DSLContext jooq;
    private final CacheTypes.Dialect dialect;
    private final RepeatedRowsSql.ByTable byTable = new RepeatedRowsSql.ByTable(this::render);

    UpsertSql(DSLContext jooq) {
      this.jooq = jooq;
      this.dialect = CacheTables.dialectOf(jooq.dialect());
    }

    String sql(String table, int rows) {
      return byTable.sql(table, rows);
    }

    private String render(String table, int rows) {
      var insert =
          jooq.insertInto(table(table), ID, AGENT, APPLICATION, BODY_HASH, BODY, LAST_UPDATED);
      for (int i = 0; i < rows; i++) {
        insert = insert.values("", "", "", "", "", 0L);
      }
      return insert
          .onConflict(ID, AGENT)
          .doUpdate()
          .set(APPLICATION, proposed(APPLICATION, dialect))
          .set(BODY_HASH, proposed(BODY_HASH, dialect))
          .set(BODY, proposed(BODY, dialect))
          .set(LAST_UPDATED, proposed(LAST_UPDATED, dialect))
          .getSQL(ParamType.INDEXED);
    }
  }

  private final DSLContext ctx;
  private final UpsertSql upsert;
  private final long now;
  private final RowTally tally;

  /** table → row key → body to write, or null to delete */
  private final Map<String, Map<RowKey, Body>> pending = new TreeMap<>();

  /** Rows queued since the last {@link #flush} (an estimate: a row may be queued twice). */
  private int queued;

  BodyRows(DSLContext ctx, UpsertSql upsert, long now, RowTally tally) {
    this.ctx = ctx;
    this.upsert = upsert;
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
   * split by {@link Chunks}; the upserts' values bound straight to JDBC ({@link
   * RepeatedRowsSql#execute}), as spinagent_objects' are.
   */
  void flush() {
    pending.forEach(
        (name, rows) -> {
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
            ctx.deleteFrom(table(name)).where(byAgent(chunk)).execute();
            tally.add(RowTally.Table.BODY, RowTally.Operation.DELETE, chunk.size());
          }
          for (List<Body> chunk : Chunks.of(writes, b -> b.body().length())) {
            RepeatedRowsSql.execute(
                ctx,
                upsert.sql(name, chunk.size()),
                statement -> {
                  int i = 0;
                  for (Body b : chunk) {
                    statement.setString(++i, b.id());
                    statement.setString(++i, b.agent());
                    if (b.application() == null) {
                      statement.setNull(++i, Types.VARCHAR);
                    } else {
                      statement.setString(++i, b.application());
                    }
                    statement.setString(++i, b.hash());
                    statement.setString(++i, b.body());
                    statement.setLong(++i, now);
                  }
                });
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
