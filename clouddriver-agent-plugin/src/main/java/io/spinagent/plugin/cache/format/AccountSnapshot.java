package io.spinagent.plugin.cache.format;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything Clouddriver's caching agent would write for one complete listing of an account: the
 * infrastructure records of the cached objects and the merged application and cluster records — the
 * content of a full resync. (Clouddriver writes these authoritatively: relationships only in the
 * bodies, no {@code _rel} rows.)
 */
public final class AccountSnapshot {

  private final Map<String, CacheRecord> records;

  private AccountSnapshot(Map<String, CacheRecord> records) {
    this.records = records;
  }

  public static AccountSnapshot build(
      String account, Collection<? extends JsonNode> objects, FormatOptions options) {
    RelationshipIndex index = new RelationshipIndex(account);
    List<JsonNode> cached = new ArrayList<>();
    for (JsonNode object : objects) {
      if (ManifestCacheRecords.skipReason(object, options).isEmpty()) {
        index.put(object);
        cached.add(object);
      }
    }
    Map<String, CacheRecord> records = new TreeMap<>();
    for (JsonNode object : cached) {
      Optional<ManifestCacheRecords> derived =
          ManifestCacheRecords.of(account, object, options, index);
      derived.ifPresent(
          d -> {
            for (CacheRecord record : d.records()) {
              records.merge(record.id(), record, CacheRecord::merge);
            }
          });
    }
    return new AccountSnapshot(records);
  }

  /** Every record by id. */
  public Map<String, CacheRecord> records() {
    return Collections.unmodifiableMap(records);
  }

  public Optional<CacheRecord> get(String id) {
    return Optional.ofNullable(records.get(id));
  }

  /** Records grouped by type (table), ids sorted. */
  public Map<String, List<CacheRecord>> byType() {
    Map<String, List<CacheRecord>> grouped = new LinkedHashMap<>();
    records.values().stream()
        .sorted(Comparator.comparing(CacheRecord::type).thenComparing(CacheRecord::id))
        .forEach(r -> grouped.computeIfAbsent(r.type(), k -> new ArrayList<>()).add(r));
    return grouped;
  }
}
