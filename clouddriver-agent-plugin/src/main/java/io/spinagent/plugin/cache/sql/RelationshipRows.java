package io.spinagent.plugin.cache.sql;

import static io.spinagent.plugin.cache.sql.Columns.ID;
import static io.spinagent.plugin.cache.sql.Columns.LAST_UPDATED;
import static io.spinagent.plugin.cache.sql.Columns.REL_AGENT;
import static io.spinagent.plugin.cache.sql.Columns.REL_ID;
import static io.spinagent.plugin.cache.sql.Columns.REL_TYPE;
import static io.spinagent.plugin.cache.sql.Columns.UUID;
import static io.spinagent.plugin.cache.sql.Columns.table;

import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Record3;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;

/**
 * Relationship rows ({@code cats_v1_<type>_rel}) in one transaction of a group: what the rows of
 * each id touched are (read up front, taken from {@link CommittedRows}, or read on first use), the
 * diff that makes an object's rows what its relationships say, and the deletes and inserts that
 * diff queues, written as multi-row statements of any accounts. Every edge is two rows (forward in
 * the source's table, reverse in the target's), both carrying the forward target type's {@code
 * rel_agent}.
 *
 * <p>An id belongs to one account (its key names the account), except an application's, whose rows
 * every account linking the application writes: those are never remembered, and an account only
 * ever adds or removes its own rows there (their {@code rel_id} names it).
 */
final class RelationshipRows {

  private static final String APPLICATION_KEY_PREFIX = CacheKeys.application("");

  /** A row to insert. */
  record Row(String uuid, String id, String relId, String relAgent, String relType) {}

  /** An id whose rows to read, its type (its table) and the account it belongs to. */
  record Wanted(String type, CommittedRows.Scope scope) {}

  /**
   * Queued changes to one table, applied by {@link #flush} in this order: so a row deleted and then
   * inserted again in one transaction ends up once, and one inserted and then deleted never reaches
   * the database.
   */
  private static final class TableChanges {
    /** ids all of whose rows go */
    final Set<String> cleared = new LinkedHashSet<>();

    /** id → rel_ids of rows that go */
    final Map<String, Set<String>> deleted = new LinkedHashMap<>();

    /** id → rel_id → row to insert */
    final Map<String, Map<String, Row>> inserted = new LinkedHashMap<>();
  }

  /**
   * The multi-row insert into each relationship table, rendered by jOOQ once per table ({@link
   * RepeatedRowsSql}) with a placeholder for each of the six values of a row, in the order {@link
   * #flush} binds them: uuid, id, rel_id, rel_agent, rel_type, last_updated. A listing writes about
   * seven relationship rows per object: while 200 accounts synced, building these statements from
   * jOOQ's objects took a sixth of the plugin's CPU samples, and binding the values to the rendered
   * statement takes a twentieth.
   */
  static final class InsertSql {
    private final DSLContext jooq;
    private final RepeatedRowsSql.ByTable byTable = new RepeatedRowsSql.ByTable(this::render);

    InsertSql(DSLContext jooq) {
      this.jooq = jooq;
    }

    String sql(String table, int rows) {
      return byTable.sql(table, rows);
    }

    private String render(String table, int rows) {
      var insert =
          jooq.insertInto(table(table), UUID, ID, REL_ID, REL_AGENT, REL_TYPE, LAST_UPDATED);
      for (int i = 0; i < rows; i++) {
        insert = insert.values("", "", "", "", "", 0L);
      }
      return insert.getSQL(ParamType.INDEXED);
    }
  }

  private final DSLContext ctx;
  private final InsertSql insertSql;
  private final CacheTables tables;
  private final CommittedRows committed;
  private final long now;
  private final RowTally tally;
  private final Map<String, TableChanges> pending = new TreeMap<>();

  /**
   * The rows of each id touched (related key → its type), as the database holds them with this
   * transaction's queued changes applied. (A key names its type, so an id has rows in one table.)
   */
  private final Map<String, Map<String, String>> rows = new HashMap<>();

  /** The account (scope) each id of {@link #rows} was tracked for, to remember it under. */
  private final Map<String, CommittedRows.Scope> owners = new HashMap<>();

  /** ids of {@link #rows} taken from {@link CommittedRows} and not changed since. */
  private final Set<String> recalledUnchanged = new HashSet<>();

  RelationshipRows(
      DSLContext ctx,
      InsertSql insertSql,
      CacheTables tables,
      CommittedRows committed,
      long now,
      RowTally tally) {
    this.ctx = ctx;
    this.insertSql = insertSql;
    this.tables = tables;
    this.committed = committed;
    this.now = now;
    this.tally = tally;
  }

  /**
   * Makes the rows of these ids known: remembered, or read (one query per 500 ids, a UNION ALL over
   * their types' tables, of any accounts). Ids whose tables do not exist yet have none.
   */
  void prefetch(Map<String, Wanted> ids) {
    Map<String, Wanted> unread = new LinkedHashMap<>();
    ids.forEach(
        (id, wanted) -> {
          if (tables.exists(wanted.type()) && tracked(wanted.scope(), id) == null) {
            unread.put(id, wanted);
          }
        });
    read(unread);
  }

  /** Reads the rows of these ids, whose tables exist, into {@link #rows}. */
  void read(Map<String, Wanted> ids) {
    for (List<Map.Entry<String, Wanted>> chunk : Chunks.of(ids.entrySet())) {
      Map<String, List<String>> byType = new TreeMap<>();
      for (Map.Entry<String, Wanted> e : chunk) {
        byType.computeIfAbsent(e.getValue().type(), t -> new ArrayList<>()).add(e.getKey());
        rows.put(e.getKey(), new LinkedHashMap<>());
        owners.put(e.getKey(), e.getValue().scope());
      }
      Select<Record3<String, String, String>> query = null;
      for (Map.Entry<String, List<String>> e : byType.entrySet()) {
        var select =
            ctx.select(ID, REL_ID, REL_TYPE)
                .from(table(tables.relTable(e.getKey())))
                .where(ID.in(e.getValue()));
        query = query == null ? select : query.unionAll(select);
      }
      for (Record r : query.fetch()) {
        Map<String, String> known = rows.get(r.get(ID));
        if (known != null) { // null: an id equal only under the column's collation
          known.put(r.get(REL_ID), r.get(REL_TYPE));
        }
      }
    }
  }

  /**
   * The rows of {@code id} as {@link #rows} has them, taken from what an earlier commit of its
   * account is remembered to have left if this transaction has not touched them yet; null when
   * neither knows them.
   */
  Map<String, String> tracked(CommittedRows.Scope scope, String id) {
    Map<String, String> known = rows.get(id);
    if (known == null && rememberable(id)) {
      Map<String, String> remembered = committed.relationships(scope, id);
      if (remembered != null) {
        known = new LinkedHashMap<>(remembered);
        rows.put(id, known);
        owners.put(id, scope);
        recalledUnchanged.add(id);
      }
    }
    return known;
  }

  /**
   * Makes the relationship rows of {@code key} exactly {@code wanted} (related key → its type),
   * both directions, touching only the differences. Returns the logical keys it unlinked.
   */
  Set<String> sync(CommittedRows.Scope scope, String key, String type, Map<String, String> wanted) {
    Map<String, String> desired = withinIdLength(wanted);
    Set<String> types = new HashSet<>(desired.values());
    types.add(type);
    tables.require(types);
    Map<String, String> have = of(scope, key, type);
    Map<String, String> gone = new LinkedHashMap<>();
    Set<String> unlinked = new LinkedHashSet<>();
    have.forEach(
        (relKey, relType) -> {
          if (!relType.equals(desired.get(relKey))) {
            gone.put(relKey, relType);
            if (CacheTypes.isLogical(relType)) {
              unlinked.add(relKey);
            }
          }
        });
    tables.require(gone.values());
    gone.forEach(
        (relKey, relType) -> {
          delete(type, key, relKey, scope);
          delete(relType, relKey, key, scope);
        });
    desired.forEach(
        (relKey, relType) -> {
          if (!relType.equals(have.get(relKey))) {
            addEdge(scope, key, type, relKey, relType);
          }
        });
    return unlinked;
  }

  /**
   * Adds the edges of {@code wanted} that {@code key}'s rows lack, and removes none: for an object
   * that did not change, whose missing edges can only be to objects the account's relationship
   * index learnt of since (after a restart, during the listing that rebuilds it).
   */
  void addMissing(CommittedRows.Scope scope, String key, String type, Map<String, String> wanted) {
    Map<String, String> desired = withinIdLength(wanted);
    Set<String> types = new HashSet<>(desired.values());
    types.add(type);
    tables.require(types);
    Map<String, String> have = of(scope, key, type);
    desired.forEach(
        (relKey, relType) -> {
          if (!have.containsKey(relKey)) {
            addEdge(scope, key, type, relKey, relType);
          }
        });
  }

  /** Queues both rows of the edge src → dst (forward in src's table, reverse in dst's). */
  void addEdge(CommittedRows.Scope scope, String src, String srcType, String dst, String dstType) {
    String relAgent = tables.relAgent(dstType, scope.account());
    insert(srcType, new Row(Ulid.next(now), src, dst, relAgent, dstType), scope);
    insert(dstType, new Row(Ulid.next(now), dst, src, relAgent, srcType), scope);
  }

  /** Queues the delete of the row {@code id → relId} in {@code ownerType}'s table. */
  void delete(String ownerType, String id, String relId, CommittedRows.Scope scope) {
    TableChanges changes = changes(ownerType);
    Map<String, Row> inserted = changes.inserted.get(id);
    if (inserted != null) {
      inserted.remove(relId);
    }
    changes.deleted.computeIfAbsent(id, k -> new LinkedHashSet<>()).add(relId);
    Map<String, String> known = trackedForChange(scope, id);
    if (known != null) {
      known.remove(relId);
    }
  }

  /** Queues the delete of every row of {@code id}. */
  void deleteAll(String ownerType, String id, CommittedRows.Scope scope) {
    TableChanges changes = changes(ownerType);
    changes.inserted.remove(id);
    changes.deleted.remove(id);
    changes.cleared.add(id);
    rows.put(id, new LinkedHashMap<>());
    owners.put(id, scope);
    recalledUnchanged.remove(id);
  }

  /**
   * The queued changes, before anything reads relationship tables: per table, one multi-row delete
   * per 500 ids cleared and per 500 rows deleted, then multi-row inserts.
   */
  void flush() {
    pending.forEach(
        (name, changes) -> {
          Table<Record> t = table(name);
          for (List<String> ids : Chunks.of(changes.cleared)) {
            ctx.deleteFrom(t).where(ID.in(ids)).execute();
            tally.add(RowTally.Table.RELATIONSHIP, RowTally.Operation.DELETE, ids.size());
          }
          List<Condition> deletes = new ArrayList<>();
          changes.deleted.forEach(
              (id, relIds) -> {
                for (List<String> relChunk : Chunks.of(relIds)) {
                  deletes.add(ID.eq(id).and(REL_ID.in(relChunk)));
                }
              });
          // an id's rows are found through its index; OR-ed, a few hundred ids per statement
          for (List<Condition> chunk : Chunks.of(deletes)) {
            ctx.deleteFrom(t).where(DSL.or(chunk)).execute();
          }
          tally.add(
              RowTally.Table.RELATIONSHIP,
              RowTally.Operation.DELETE,
              changes.deleted.values().stream().mapToInt(Set::size).sum());
          List<Row> inserts = new ArrayList<>();
          changes.inserted.values().forEach(byRelId -> inserts.addAll(byRelId.values()));
          for (List<Row> chunk : Chunks.of(inserts)) {
            RepeatedRowsSql.execute(
                ctx,
                insertSql.sql(name, chunk.size()),
                statement -> {
                  int i = 0;
                  for (Row row : chunk) {
                    statement.setString(++i, row.uuid());
                    statement.setString(++i, row.id());
                    statement.setString(++i, row.relId());
                    statement.setString(++i, row.relAgent());
                    statement.setString(++i, row.relType());
                    statement.setLong(++i, now);
                  }
                });
            tally.add(RowTally.Table.RELATIONSHIP, RowTally.Operation.WRITE, chunk.size());
          }
        });
    pending.clear();
  }

  /**
   * Remembers the rows this transaction changed or read for the accounts' next batches, unless an
   * account's remembered rows were forgotten meanwhile.
   */
  void remember(Predicate<CommittedRows.Scope> current) {
    rows.forEach(
        (id, known) -> {
          CommittedRows.Scope scope = owners.get(id);
          if (scope != null
              && rememberable(id)
              && !recalledUnchanged.contains(id)
              && current.test(scope)) {
            committed.rememberRelationships(scope, id, known);
          }
        });
  }

  /**
   * The rows of {@code key} (related key → its type), queued changes included: read now if not
   * known yet.
   */
  Map<String, String> of(CommittedRows.Scope scope, String key, String type) {
    Map<String, String> known = tracked(scope, key);
    if (known == null) {
      known = read(key, type);
      rows.put(key, known);
      owners.put(key, scope);
    }
    return new LinkedHashMap<>(known);
  }

  /** The rows of one key as the database holds them, with this transaction's changes applied. */
  private Map<String, String> read(String key, String type) {
    Map<String, String> known = new LinkedHashMap<>();
    TableChanges changes = pending.get(tables.relTable(type));
    if (changes == null || !changes.cleared.contains(key)) {
      for (Record r :
          ctx.select(REL_ID, REL_TYPE)
              .from(table(tables.relTable(type)))
              .where(ID.eq(key))
              .fetch()) {
        known.put(r.get(REL_ID), r.get(REL_TYPE));
      }
    }
    if (changes != null) {
      changes.deleted.getOrDefault(key, Set.of()).forEach(known::remove);
      changes
          .inserted
          .getOrDefault(key, Map.of())
          .forEach((relId, row) -> known.put(relId, row.relType()));
    }
    return known;
  }

  private void insert(String ownerType, Row row, CommittedRows.Scope scope) {
    changes(ownerType)
        .inserted
        .computeIfAbsent(row.id(), k -> new LinkedHashMap<>())
        .put(row.relId(), row);
    Map<String, String> known = trackedForChange(scope, row.id());
    if (known != null) {
      known.put(row.relId(), row.relType());
    }
  }

  /** {@link #tracked}, about to be changed: remembered again after the commit. */
  private Map<String, String> trackedForChange(CommittedRows.Scope scope, String id) {
    Map<String, String> known = tracked(scope, id);
    recalledUnchanged.remove(id);
    return known;
  }

  private TableChanges changes(String ownerType) {
    return pending.computeIfAbsent(tables.relTable(ownerType), t -> new TableChanges());
  }

  /** Related keys the id column can hold (cats-sql skips longer ones, and so does the writer). */
  private Map<String, String> withinIdLength(Map<String, String> wanted) {
    Map<String, String> desired = new LinkedHashMap<>();
    wanted.forEach(
        (k, t) -> {
          if (k.length() <= tables.dialect().maxIdLength) {
            desired.put(k, t);
          }
        });
    return desired;
  }

  /**
   * Whether a key's rows may be remembered: not an application's, which every account linking the
   * application writes to.
   */
  static boolean rememberable(String id) {
    return !id.startsWith(APPLICATION_KEY_PREFIX);
  }
}
