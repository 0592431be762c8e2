package io.spinagent.sandbox.view;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;

/**
 * Reads Clouddriver's SQL cache the way its {@code SqlCache} does: every body of a type's {@code
 * cats_v1_<type>} table, rows of the same id (written by different agents) merged — the first
 * attributes win, relationships are unioned, relationship group names are cut at ':' — and then the
 * type's {@code _rel} rows merged into the relationships of ids that have a body. It never looks at
 * {@code agent}, {@code body_hash} or {@code last_updated}, as Clouddriver does not.
 */
public final class CacheTables {

  /** One cache entry as Clouddriver's reader would return it. */
  public record Item(String id, JsonNode attributes, Map<String, Set<String>> relationships) {

    public Set<String> related(String type) {
      return relationships.getOrDefault(type, Set.of());
    }

    public String attribute(String name) {
      JsonNode value = attributes.path(name);
      return value.isMissingNode() || value.isNull() ? null : value.asText();
    }

    /** A path into the cached manifest, e.g. {@code status.phase}; null when absent. */
    public JsonNode manifest(String path) {
      JsonNode node = attributes.path("manifest");
      for (String part : path.split("\\.", 0)) {
        node = node.path(part);
      }
      return node.isMissingNode() || node.isNull() ? null : node;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DSLContext jooq;

  public CacheTables(DSLContext jooq) {
    this.jooq = jooq;
  }

  /**
   * Cache types whose table exists: the type in lower case (PostgreSQL folds unquoted names) → the
   * type as its table is named (on MariaDB, table names are case-sensitive on Linux).
   */
  public Map<String, String> existingTypes() {
    String schema =
        jooq.dialect().family() == SQLDialect.POSTGRES ? "current_schema()" : "database()";
    Map<String, String> types = new TreeMap<>();
    for (Record row :
        jooq.fetch(
            "select table_name from information_schema.tables where table_schema = "
                + schema
                + " and table_name like 'cats_v1_%'")) {
      String table = row.get(0, String.class);
      if (!table.endsWith("_rel") && !table.endsWith("_template")) {
        String type = table.substring("cats_v1_".length());
        types.put(type.toLowerCase(Locale.ROOT), type);
      }
    }
    return types;
  }

  /**
   * All entries of a type (e.g. {@code replicaSet}), by id; empty when its table does not exist
   * yet.
   */
  public Map<String, Item> all(String type, Map<String, String> existingTypes) {
    String existing = existingTypes.get(type.toLowerCase(Locale.ROOT));
    if (existing == null) {
      return Map.of();
    }
    String table = "cats_v1_" + existing;
    Map<String, JsonNode> attributes = new LinkedHashMap<>();
    Map<String, Map<String, Set<String>>> relationships = new HashMap<>();
    for (Record row : jooq.fetch("select id, body from " + table + " order by id")) {
      String id = row.get(0, String.class);
      JsonNode body = parse(row.get(1, String.class));
      attributes.putIfAbsent(id, body.path("attributes"));
      Map<String, Set<String>> rels = relationships.computeIfAbsent(id, k -> new HashMap<>());
      body.path("relationships")
          .fields()
          .forEachRemaining(
              group -> {
                Set<String> keys =
                    rels.computeIfAbsent(group.getKey().split(":", 0)[0], k -> new TreeSet<>());
                group.getValue().forEach(key -> keys.add(key.asText()));
              });
    }
    for (Record row : jooq.fetch("select id, rel_id, rel_type from " + table + "_rel")) {
      Map<String, Set<String>> rels = relationships.get(row.get(0, String.class));
      if (rels != null) {
        rels.computeIfAbsent(row.get(2, String.class), k -> new TreeSet<>())
            .add(row.get(1, String.class));
      }
    }
    Map<String, Item> items = new LinkedHashMap<>();
    attributes.forEach((id, attrs) -> items.put(id, new Item(id, attrs, relationships.get(id))));
    return items;
  }

  private static JsonNode parse(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException("A cache body is not JSON: " + e.getMessage(), e);
    }
  }
}
