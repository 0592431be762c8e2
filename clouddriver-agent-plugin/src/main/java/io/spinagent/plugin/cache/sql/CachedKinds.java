package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.format.CacheTypes;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which cache types are written: {@code spinagent.cache.kinds} (default: Clouddriver's default set,
 * {@link CacheTypes#DEFAULT_CACHED_TYPES}), or every kind with {@code cacheAll}, minus {@code
 * omitKinds}. Entries are cache types or kind names/aliases, normalised as Clouddriver does.
 */
public final class CachedKinds {

  private final Set<String> included; // null: every kind
  private final Set<String> omitted;

  public CachedKinds(Collection<String> kinds, Collection<String> omitKinds, boolean cacheAll) {
    this.included =
        cacheAll
            ? null
            : kinds == null || kinds.isEmpty() ? CacheTypes.DEFAULT_CACHED_TYPES : normalise(kinds);
    this.omitted = omitKinds == null ? Set.of() : normalise(omitKinds);
  }

  public static CachedKinds defaults() {
    return new CachedKinds(null, null, false);
  }

  public boolean caches(String type) {
    return (included == null || included.contains(type)) && !omitted.contains(type);
  }

  /**
   * {@code Deployment}, {@code deploy}, {@code deployment} → {@code deployment}; {@code X.group}
   * kept.
   */
  static String normalise(String kind) {
    String k = kind.trim();
    int dot = k.indexOf('.');
    if (dot > 0) {
      String group = k.substring(dot + 1);
      return CacheTypes.forKind(group + "/v1", k.substring(0, dot));
    }
    return CacheTypes.forKind("v1", k);
  }

  private static Set<String> normalise(Collection<String> kinds) {
    Set<String> set = new LinkedHashSet<>();
    for (String k : kinds) {
      if (k != null && !k.isBlank()) {
        set.add(normalise(k));
      }
    }
    return set;
  }
}
