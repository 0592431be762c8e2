package io.spinagent.plugin.cache.sql;

import static io.spinagent.plugin.cache.sql.Columns.ACCOUNT;
import static io.spinagent.plugin.cache.sql.Columns.API_GROUP;
import static io.spinagent.plugin.cache.sql.Columns.CACHE_FORMAT;
import static io.spinagent.plugin.cache.sql.Columns.DELETED;
import static io.spinagent.plugin.cache.sql.Columns.KIND;
import static io.spinagent.plugin.cache.sql.Columns.LAST_UPDATED;
import static io.spinagent.plugin.cache.sql.Columns.NAME;
import static io.spinagent.plugin.cache.sql.Columns.NAMESPACE;
import static io.spinagent.plugin.cache.sql.Columns.RESOURCE_VERSION;
import static io.spinagent.plugin.cache.sql.Columns.proposed;
import static io.spinagent.plugin.cache.sql.Columns.table;

import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.protocol.v1.Kind;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;

/**
 * {@code spinagent_objects} in one transaction of a group: each object's newest resourceVersion,
 * whether that was its delete (a tombstone), and the cache format its rows were written in. What
 * the group's objects hold is taken from {@link CommittedRows} where an earlier commit is
 * remembered, the rest read up front (one query per 500 objects, all accounts together); the rows
 * to write are queued and written as multi-row upserts of many accounts' rows.
 */
final class ObjectVersions {

  static final String TABLE = "spinagent_objects";

  // column sizes of spinagent_objects (db/spinagent/changelog.yml)
  static final int MAX_ACCOUNT = 100;
  static final int MAX_GROUP = 150;
  static final int MAX_KIND = 63;
  static final int MAX_NAMESPACE = 63;
  static final int MAX_NAME = 253;
  static final int MAX_RESOURCE_VERSION = 64;

  /** An object's identity in spinagent_objects. */
  record Key(String account, String group, String kind, String namespace, String name) {

    static Key of(String account, Kind kind, String namespace, String name) {
      return new Key(account, kind.getGroup(), kind.getKind(), namespace, name);
    }

    /** The object's infrastructure cache key, under which {@link CommittedRows} knows it. */
    String cacheKey() {
      String type = CacheTypes.forKind(group.isEmpty() ? "v1" : group + "/v1", kind);
      return CacheKeys.infrastructure(type, account, namespace, name);
    }
  }

  /**
   * An object's row.
   *
   * @param format the cache format its rows were written in ({@link Derivation#formatOf}); null for
   *     rows written before formats were recorded
   */
  record Version(String resourceVersion, boolean deleted, Integer format) {

    /**
     * Whether an upsert at {@code resourceVersion} finds the object's rows already written from
     * that very version, in that format: then there is nothing to write. An empty resourceVersion
     * is never taken for the same one.
     */
    boolean isCurrent(String resourceVersion, int format) {
      return !deleted
          && !resourceVersion.isEmpty()
          && resourceVersion.equals(this.resourceVersion)
          && this.format != null
          && this.format == format;
    }
  }

  /** An object of one account and kind as spinagent_objects holds it. */
  record Stored(String namespace, String name, boolean deleted) {}

  /**
   * The multi-row upsert's SQL, rendered by jOOQ once per statement shape ({@link RepeatedRowsSql})
   * with a placeholder for each of the nine values of a row, in the order {@link #flush} binds
   * them: account, api_group, kind, namespace, name, resource_version, deleted, cache_format,
   * last_updated.
   */
  static final class UpsertSql {
    private final DSLContext jooq;
    private final CacheTypes.Dialect dialect;
    private final RepeatedRowsSql sql;

    UpsertSql(DSLContext jooq) {
      this.jooq = jooq;
      this.dialect = CacheTables.dialectOf(jooq.dialect());
      this.sql = RepeatedRowsSql.of(this::render);
    }

    String sql(int rows) {
      return sql.sql(rows);
    }

    String render(int rows) {
      var insert =
          jooq.insertInto(
              table(TABLE),
              ACCOUNT,
              API_GROUP,
              KIND,
              NAMESPACE,
              NAME,
              RESOURCE_VERSION,
              DELETED,
              CACHE_FORMAT,
              LAST_UPDATED);
      for (int i = 0; i < rows; i++) {
        insert = insert.values("", "", "", "", "", "", false, 0, 0L);
      }
      return insert
          .onConflict(ACCOUNT, API_GROUP, KIND, NAMESPACE, NAME)
          .doUpdate()
          .set(RESOURCE_VERSION, proposed(RESOURCE_VERSION, dialect))
          .set(DELETED, proposed(DELETED, dialect))
          .set(CACHE_FORMAT, proposed(CACHE_FORMAT, dialect))
          .set(LAST_UPDATED, proposed(LAST_UPDATED, dialect))
          .getSQL(ParamType.INDEXED);
    }
  }

  private final DSLContext ctx;
  private final UpsertSql upsert;
  private final CommittedRows committed;
  private final long now;
  private final RowTally tally;

  /**
   * What spinagent_objects holds for the objects seen so far (null: no row), queued rows applied.
   */
  private final Map<Key, Version> held = new HashMap<>();

  /** Rows to write, in bulk. */
  private final Map<Key, Version> pending = new LinkedHashMap<>();

  ObjectVersions(
      DSLContext ctx, UpsertSql upsert, CommittedRows committed, long now, RowTally tally) {
    this.ctx = ctx;
    this.upsert = upsert;
    this.committed = committed;
    this.now = now;
    this.tally = tally;
  }

  /**
   * Makes what spinagent_objects holds for these objects known: remembered (each in its account's
   * {@code scope}) or read, one query per 500 objects of any accounts, each group of them index
   * lookups by the primary key's prefix up to the namespace rather than a scan of a kind.
   */
  void prefetch(Map<Key, CommittedRows.Scope> objects) {
    Set<Key> wanted = new LinkedHashSet<>();
    objects.forEach(
        (key, scope) -> {
          if (!held.containsKey(key) && !recall(key, scope)) {
            wanted.add(key);
          }
        });
    for (List<Key> chunk : Chunks.of(wanted)) {
      chunk.forEach(k -> held.put(k, null)); // absent unless found
      for (Record r :
          ctx.select(
                  ACCOUNT,
                  API_GROUP,
                  KIND,
                  NAMESPACE,
                  NAME,
                  RESOURCE_VERSION,
                  DELETED,
                  CACHE_FORMAT)
              .from(table(TABLE))
              .where(byNamespace(chunk))
              .fetch()) {
        Key k =
            new Key(r.get(ACCOUNT), r.get(API_GROUP), r.get(KIND), r.get(NAMESPACE), r.get(NAME));
        if (held.containsKey(k)) { // else equal only under the column's collation
          held.put(k, version(r));
        }
      }
    }
  }

  /** The object's row (null: none), queued changes included; read now if not known yet. */
  Version get(Key key, CommittedRows.Scope scope) {
    if (held.containsKey(key) || recall(key, scope)) {
      return held.get(key);
    }
    flush();
    Record r =
        ctx.select(RESOURCE_VERSION, DELETED, CACHE_FORMAT)
            .from(table(TABLE))
            .where(
                ACCOUNT
                    .eq(key.account())
                    .and(API_GROUP.eq(key.group()))
                    .and(KIND.eq(key.kind()))
                    .and(NAMESPACE.eq(key.namespace()))
                    .and(NAME.eq(key.name())))
            .fetchOne();
    Version version = r == null ? null : version(r);
    held.put(key, version);
    return version;
  }

  /** Records the object's new row, to be written by {@link #flush}. */
  void save(Key key, Version version) {
    held.put(key, version);
    pending.put(key, version);
  }

  /**
   * The queued rows, as multi-row upserts, before anything reads spinagent_objects. The rows are
   * bound straight to the JDBC statement whose SQL jOOQ rendered: nine values a row, jOOQ's objects
   * for each bound value took about 6 ms of a 500-row statement's 18 (a probe on both databases).
   */
  void flush() {
    for (List<Map.Entry<Key, Version>> chunk : Chunks.of(pending.entrySet())) {
      RepeatedRowsSql.execute(
          ctx,
          upsert.sql(chunk.size()),
          statement -> {
            int i = 0;
            for (Map.Entry<Key, Version> e : chunk) {
              Key k = e.getKey();
              Version v = e.getValue();
              statement.setString(++i, k.account());
              statement.setString(++i, k.group());
              statement.setString(++i, k.kind());
              statement.setString(++i, k.namespace());
              statement.setString(++i, k.name());
              statement.setString(++i, v.resourceVersion());
              statement.setBoolean(++i, v.deleted());
              if (v.format() == null) {
                statement.setNull(++i, Types.INTEGER);
              } else {
                statement.setInt(++i, v.format());
              }
              statement.setLong(++i, now);
            }
          });
      tally.add(RowTally.Table.OBJECT, RowTally.Operation.WRITE, chunk.size());
    }
    pending.clear();
  }

  /** The objects spinagent_objects holds of one account and kind, queued rows written first. */
  List<Stored> ofKind(String account, Kind kind) {
    flush();
    return ctx.select(NAMESPACE, NAME, DELETED)
        .from(table(TABLE))
        .where(ACCOUNT.eq(account).and(API_GROUP.eq(kind.getGroup())).and(KIND.eq(kind.getKind())))
        .fetch(r -> new Stored(r.value1(), r.value2(), Boolean.TRUE.equals(r.value3())));
  }

  /** The kinds of which spinagent_objects holds objects (or tombstones) of the account. */
  List<Kind> kindsOf(String account) {
    flush();
    return ctx.selectDistinct(API_GROUP, KIND)
        .from(table(TABLE))
        .where(ACCOUNT.eq(account))
        .fetch(r -> Kind.newBuilder().setGroup(r.value1()).setKind(r.value2()).build());
  }

  /** Deletes these objects' rows (queued rows written first). */
  void delete(Collection<Key> keys) {
    flush();
    for (List<Key> chunk : Chunks.of(keys)) {
      chunk.forEach(k -> held.put(k, null));
      ctx.deleteFrom(table(TABLE)).where(byNamespace(chunk)).execute();
      tally.add(RowTally.Table.OBJECT, RowTally.Operation.DELETE, chunk.size());
    }
  }

  /**
   * Remembers what this transaction leaves in spinagent_objects for the accounts' next batches,
   * unless an account's remembered rows were forgotten meanwhile.
   */
  void remember(Map<String, CommittedRows.Scope> scopes, Predicate<CommittedRows.Scope> current) {
    held.forEach(
        (key, version) -> {
          CommittedRows.Scope scope = scopes.get(key.account());
          if (scope != null && current.test(scope)) {
            committed.rememberObject(scope, key.cacheKey(), version);
          }
        });
  }

  /** Puts the object's row in {@link #held} if an earlier commit is remembered; whether it was. */
  // NO_ROW is a sentinel instance, compared by identity on purpose.
  @SuppressWarnings("ReferenceEquality")
  private boolean recall(Key key, CommittedRows.Scope scope) {
    Version version = committed.object(scope, key.cacheKey());
    if (version == null) {
      return false;
    }
    held.put(key, version == CommittedRows.NO_ROW ? null : version);
    return true;
  }

  /**
   * The rows of these objects, grouped by the primary key's prefix up to the namespace, so that
   * each group is index lookups of its names rather than a scan of every object of its kind.
   */
  private static Condition byNamespace(List<Key> keys) {
    Map<Key, Set<String>> names = new LinkedHashMap<>();
    for (Key k : keys) {
      names
          .computeIfAbsent(
              new Key(k.account(), k.group(), k.kind(), k.namespace(), ""), x -> new HashSet<>())
          .add(k.name());
    }
    List<Condition> conditions = new ArrayList<>();
    names.forEach(
        (prefix, inNamespace) ->
            conditions.add(
                ACCOUNT
                    .eq(prefix.account())
                    .and(API_GROUP.eq(prefix.group()))
                    .and(KIND.eq(prefix.kind()))
                    .and(NAMESPACE.eq(prefix.namespace()))
                    .and(NAME.in(inNamespace))));
    return DSL.or(conditions);
  }

  private static Version version(Record r) {
    return new Version(
        r.get(RESOURCE_VERSION), Boolean.TRUE.equals(r.get(DELETED)), r.get(CACHE_FORMAT));
  }
}
