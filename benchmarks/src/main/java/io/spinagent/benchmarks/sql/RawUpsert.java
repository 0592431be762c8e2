package io.spinagent.benchmarks.sql;

import static io.spinagent.benchmarks.sql.CatsBodies.AGENT;
import static io.spinagent.benchmarks.sql.CatsBodies.ID;
import static io.spinagent.benchmarks.sql.CatsBodies.LAST_UPDATED;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.format.ManifestCacheRecords;
import io.spinagent.plugin.cache.sql.CacheTables;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.ObjectChange;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep6;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The physical limit: the rows the writer ends up with for a batch of changes — the same keys,
 * bodies and relationship rows in the same tables under the same agent value — written with
 * multi-row jOOQ upserts, one statement per table, one transaction per batch. Nothing is read first
 * and nothing is derived while timed: {@link #prepare} derives every row beforehand.
 */
final class RawUpsert {

  private static final Field<String> UUID = field(unquotedName("uuid"), SQLDataType.VARCHAR);
  private static final Field<String> REL_ID = field(unquotedName("rel_id"), SQLDataType.VARCHAR);
  private static final Field<String> REL_AGENT =
      field(unquotedName("rel_agent"), SQLDataType.VARCHAR);
  private static final Field<String> REL_TYPE =
      field(unquotedName("rel_type"), SQLDataType.VARCHAR);
  private static final char[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

  /**
   * One change as rows: a body to upsert (with, for a new object, its relationship rows) or a
   * delete.
   */
  record Row(
      String type,
      String key,
      String body,
      String hash,
      Map<String, String> related,
      boolean delete) {}

  private final DSLContext jooq;
  private final CacheTables names;
  private final CacheTypes.Dialect dialect;
  private final String agent;
  private final ObjectMapper mapper = new ObjectMapper();
  private final SecureRandom random = new SecureRandom();

  /**
   * Live keys → their related keys (key → type), to know creates from updates and what a delete
   * unlinks.
   */
  private final Map<String, Map<String, String>> live = new HashMap<>();

  /** {@code names} supplies table names and the agent value; its own state is not touched. */
  RawUpsert(DSLContext jooq, CacheTables names, CacheTypes.Dialect dialect) {
    this.jooq = jooq;
    this.names = names;
    this.dialect = dialect;
    this.agent = names.agentColumn(ClusterWorkload.ACCOUNT);
  }

  /** Derives the rows of {@code changes} (untimed), tracking which objects exist. */
  List<Row> prepare(List<ObjectChange> changes) {
    List<Row> rows = new ArrayList<>(changes.size());
    for (ObjectChange change : changes) {
      String type = typeOf(change);
      String key =
          CacheKeys.infrastructure(
              type, ClusterWorkload.ACCOUNT, change.getNamespace(), change.getName());
      if (change.getType() == ChangeType.CHANGE_TYPE_DELETE) {
        Map<String, String> related = live.remove(key);
        rows.add(new Row(type, key, null, null, related == null ? Map.of() : related, true));
        continue;
      }
      byte[] json = change.getObjectJson().toByteArray();
      ObjectNode object;
      try {
        object = (ObjectNode) mapper.readTree(json);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      // derived as the writer derives it
      CacheRecord infra =
          ManifestCacheRecords.ofSent(ClusterWorkload.ACCOUNT, json, object, FormatOptions.DEFAULTS)
              .orElseThrow()
              .infrastructure();
      Map<String, List<String>> sticky = new TreeMap<>();
      CacheTypes.STICKY_TYPES.forEach(t -> sticky.put(t, List.of()));
      String body =
          new CacheRecord(key, type, infra.attributes(), sticky, infra.ttlSeconds())
              .toBodyJson(mapper, 0);
      Map<String, String> related = new LinkedHashMap<>();
      infra.relationships().forEach((group, keys) -> keys.forEach(k -> related.put(k, group)));
      boolean created = !live.containsKey(key);
      live.put(key, related);
      rows.add(
          new Row(
              type, key, body, CacheRecord.bodyHash(body), created ? related : Map.of(), false));
    }
    return rows;
  }

  /** Writes one batch's rows in one transaction. */
  void apply(List<Row> rows) {
    long now = System.currentTimeMillis();
    jooq.transaction(
        cfg -> {
          DSLContext ctx = DSL.using(cfg);
          deletes(ctx, rows);
          upserts(ctx, rows, now);
          relationships(ctx, rows, now);
        });
  }

  private void deletes(DSLContext ctx, List<Row> rows) {
    Map<String, List<String>> byType = new TreeMap<>();
    Map<String, Set<String>> reverse = new TreeMap<>(); // related type → related keys
    for (Row row : rows) {
      if (row.delete()) {
        byType.computeIfAbsent(row.type(), t -> new ArrayList<>()).add(row.key());
        row.related().forEach((k, t) -> reverse.computeIfAbsent(t, x -> new HashSet<>()).add(k));
      }
    }
    byType.forEach(
        (type, keys) -> {
          ctx.deleteFrom(table(unquotedName(names.resourceTable(type))))
              .where(AGENT.eq(agent).and(ID.in(keys)))
              .execute();
          ctx.deleteFrom(table(unquotedName(names.relTable(type)))).where(ID.in(keys)).execute();
        });
    Set<String> deleted = new HashSet<>();
    byType.values().forEach(deleted::addAll);
    reverse.forEach(
        (type, keys) ->
            ctx.deleteFrom(table(unquotedName(names.relTable(type))))
                .where(ID.in(keys).and(REL_ID.in(deleted)))
                .execute());
  }

  /** One multi-row upsert per table; a key seen twice in a batch starts a new statement. */
  private void upserts(DSLContext ctx, List<Row> rows, long now) {
    Map<String, List<List<Row>>> statements = new TreeMap<>();
    Map<String, Set<String>> keysInLast = new HashMap<>();
    for (Row row : rows) {
      if (row.delete()) {
        continue;
      }
      List<List<Row>> list = statements.computeIfAbsent(row.type(), t -> new ArrayList<>());
      Set<String> keys = keysInLast.computeIfAbsent(row.type(), t -> new HashSet<>());
      if (list.isEmpty() || !keys.add(row.key())) {
        list.add(new ArrayList<>());
        keys.clear();
        keys.add(row.key());
      }
      list.get(list.size() - 1).add(row);
    }
    statements.forEach(
        (type, list) -> {
          for (List<Row> chunk : list) {
            CatsBodies.upsert(
                ctx,
                dialect,
                names.resourceTable(type),
                agent,
                chunk.stream()
                    .map(row -> new CatsBodies.Body(row.key(), row.hash(), row.body()))
                    .toList(),
                now);
          }
        });
  }

  /**
   * Both rows of every new object's relationships (each carrying the forward relationship's
   * rel_agent, as the writer's), one multi-row insert per table.
   */
  private void relationships(DSLContext ctx, List<Row> rows, long now) {
    Map<String, List<Object[]>> inserts = new TreeMap<>();
    for (Row row : rows) {
      if (row.delete()) {
        continue;
      }
      row.related()
          .forEach(
              (relKey, relType) -> {
                String relAgent =
                    CacheTypes.agentColumn(
                        relType + ":" + ClusterWorkload.ACCOUNT + CacheTables.AGENT_SUFFIX,
                        dialect.maxAgentLength);
                inserts
                    .computeIfAbsent(names.relTable(row.type()), t -> new ArrayList<>())
                    .add(new Object[] {uuid(), row.key(), relKey, relAgent, relType});
                inserts
                    .computeIfAbsent(names.relTable(relType), t -> new ArrayList<>())
                    .add(new Object[] {uuid(), relKey, row.key(), relAgent, row.type()});
              });
    }
    inserts.forEach(
        (table, list) -> {
          InsertValuesStep6<Record, String, String, String, String, String, Long> insert =
              ctx.insertInto(
                  table(unquotedName(table)), UUID, ID, REL_ID, REL_AGENT, REL_TYPE, LAST_UPDATED);
          for (Object[] r : list) {
            insert =
                insert.values(
                    (String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4], now);
          }
          insert.execute();
        });
  }

  private String uuid() {
    char[] chars = new char[26];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = CROCKFORD[random.nextInt(32)];
    }
    return new String(chars);
  }

  static String typeOf(ObjectChange change) {
    String version = change.getKind().getVersion();
    String group = change.getKind().getGroup();
    return CacheTypes.forKind(
        group.isEmpty() ? version : group + "/" + version, change.getKind().getKind());
  }
}
