package io.spinagent.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.spinagent.plugin.cache.format.AccountSnapshot;
import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.sandbox.view.CacheTables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The fault soak's check: Clouddriver's cache, read from the database as Clouddriver's {@code
 * SqlCache} reads it ({@link CacheTables}), against what Clouddriver's caching agent would derive
 * from the clusters as they are now ({@link AccountSnapshot} of every account, merged), object by
 * object: the same keys of every type, the same {@code metadata.resourceVersion} in each cached
 * manifest, and the same relationships (empty groups aside). Only the clusters' accounts are
 * compared: records and relationships of other accounts (the dynamic accounts of {@link ApiChurn},
 * which reach a cluster that does not change) are left out of the cache as read.
 */
final class SoakComparison {

  private SoakComparison() {}

  /** The differences, each a line naming the type, the key and what differs; empty if none. */
  static List<String> differences(
      FleetDatabase.Scenario database, String dialect, List<SoakCluster> clusters) {
    Map<String, CacheRecord> expected = expected(clusters);
    Set<String> accounts = new TreeSet<>();
    clusters.forEach(cluster -> accounts.add(cluster.account()));
    Map<String, Map<String, CacheTables.Item>> actual =
        ofAccounts(read(database, dialect), accounts);
    List<String> differences = new ArrayList<>();
    Map<String, Map<String, CacheRecord>> expectedByType = new TreeMap<>();
    expected
        .values()
        .forEach(
            r ->
                expectedByType
                    .computeIfAbsent(r.type().toLowerCase(Locale.ROOT), t -> new TreeMap<>())
                    .put(r.id(), r));
    Set<String> types = new TreeSet<>(expectedByType.keySet());
    types.addAll(actual.keySet());
    for (String type : types) {
      Map<String, CacheRecord> want = expectedByType.getOrDefault(type, Map.of());
      Map<String, CacheTables.Item> have = actual.getOrDefault(type, Map.of());
      for (CacheRecord record : want.values()) {
        CacheTables.Item item = have.get(record.id());
        if (item == null) {
          differences.add(type + " " + record.id() + ": missing from the cache");
          continue;
        }
        Object manifest = record.attributes().get("manifest");
        if (manifest != null) {
          String wanted = resourceVersion(manifest);
          JsonNode cached = item.manifest("metadata.resourceVersion");
          String cachedVersion = cached == null ? null : cached.asText();
          if (wanted != null && !wanted.equals(cachedVersion)) {
            differences.add(
                type
                    + " "
                    + record.id()
                    + ": resourceVersion "
                    + cachedVersion
                    + " in the cache, "
                    + wanted
                    + " in the cluster");
          }
        }
        Map<String, Set<String>> wantedRelationships = nonEmpty(record.relationships());
        Map<String, Set<String>> cachedRelationships = nonEmpty(item.relationships());
        if (!wantedRelationships.equals(cachedRelationships)) {
          differences.add(
              type
                  + " "
                  + record.id()
                  + ": relationships "
                  + describe(cachedRelationships, wantedRelationships));
        }
      }
      for (String id : have.keySet()) {
        if (!want.containsKey(id)) {
          differences.add(type + " " + id + ": in the cache, not in the cluster");
        }
      }
    }
    return differences;
  }

  /** The records Clouddriver's caching agent would derive from the clusters now, by id. */
  static Map<String, CacheRecord> expected(List<SoakCluster> clusters) {
    Map<String, CacheRecord> expected = new TreeMap<>();
    for (SoakCluster cluster : clusters) {
      List<JsonNode> objects = cluster.objects();
      AccountSnapshot.build(cluster.account(), objects, FormatOptions.DEFAULTS)
          .records()
          .forEach((id, record) -> expected.merge(id, record, CacheRecord::merge));
    }
    return expected;
  }

  private static Map<String, Map<String, CacheTables.Item>> read(
      FleetDatabase.Scenario database, String dialect) {
    try (Connection connection =
        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())) {
      CacheTables tables =
          new CacheTables(
              DSL.using(
                  connection,
                  dialect.equals("postgres") ? SQLDialect.POSTGRES : SQLDialect.MARIADB));
      // keyed by the type in lower case; read from the table as Clouddriver named it (MariaDB's
      // table names are case-sensitive on Linux)
      Map<String, String> existing = tables.existingTypes();
      Map<String, Map<String, CacheTables.Item>> items = new TreeMap<>();
      for (String type : existing.keySet()) {
        items.put(type, tables.all(type, existing));
      }
      return items;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the cache: " + e.getMessage(), e);
    }
  }

  /**
   * The cache as read, without the records of other accounts and without relationships to them; an
   * application record related to other accounts only is left out too.
   */
  private static Map<String, Map<String, CacheTables.Item>> ofAccounts(
      Map<String, Map<String, CacheTables.Item>> cache, Set<String> accounts) {
    Map<String, Map<String, CacheTables.Item>> kept = new TreeMap<>();
    cache.forEach(
        (type, items) -> {
          Map<String, CacheTables.Item> ofType = new TreeMap<>();
          items.forEach(
              (id, item) -> {
                if (!ofAccounts(id, accounts)) {
                  return;
                }
                Map<String, Set<String>> relationships = new TreeMap<>();
                boolean related = item.relationships() == null || item.relationships().isEmpty();
                if (item.relationships() != null) {
                  for (var group : item.relationships().entrySet()) {
                    Set<String> keys = new TreeSet<>();
                    group.getValue().stream()
                        .filter(k -> ofAccounts(k, accounts))
                        .forEach(keys::add);
                    related |= !keys.isEmpty() || group.getValue().isEmpty();
                    relationships.put(group.getKey(), keys);
                  }
                }
                if (related) {
                  ofType.put(id, new CacheTables.Item(id, item.attributes(), relationships));
                }
              });
          if (!ofType.isEmpty()) {
            kept.put(type, ofType);
          }
        });
    return kept;
  }

  /** Whether a cache key belongs to one of {@code accounts}, or to no account (an application). */
  private static boolean ofAccounts(String key, Set<String> accounts) {
    return CacheKeys.parse(key)
        .map(parsed -> parsed.account() == null || accounts.contains(parsed.account()))
        .orElse(true);
  }

  private static String resourceVersion(Object manifest) {
    if (manifest instanceof JsonNode node) {
      JsonNode version = node.path("metadata").path("resourceVersion");
      return version.isMissingNode() ? null : version.asText();
    }
    if (manifest instanceof Map<?, ?> map && map.get("metadata") instanceof Map<?, ?> metadata) {
      Object version = metadata.get("resourceVersion");
      return version == null ? null : version.toString();
    }
    return null;
  }

  private static Map<String, Set<String>> nonEmpty(Map<String, ? extends Set<String>> groups) {
    Map<String, Set<String>> result = new TreeMap<>();
    if (groups != null) {
      groups.forEach(
          (group, keys) -> {
            if (!keys.isEmpty()) {
              result.put(group, new TreeSet<>(keys));
            }
          });
    }
    return result;
  }

  private static String describe(Map<String, Set<String>> cached, Map<String, Set<String>> wanted) {
    StringBuilder text = new StringBuilder();
    Set<String> groups = new TreeSet<>(cached.keySet());
    groups.addAll(wanted.keySet());
    for (String group : groups) {
      Set<String> extra = new TreeSet<>(cached.getOrDefault(group, Set.of()));
      extra.removeAll(wanted.getOrDefault(group, Set.of()));
      Set<String> missing = new TreeSet<>(wanted.getOrDefault(group, Set.of()));
      missing.removeAll(cached.getOrDefault(group, Set.of()));
      if (!extra.isEmpty()) {
        text.append(" ").append(group).append(" only in the cache ").append(extra);
      }
      if (!missing.isEmpty()) {
        text.append(" ").append(group).append(" missing from the cache ").append(missing);
      }
    }
    return text.toString().trim();
  }
}
