package io.spinagent.plugin.cache.format;

import java.util.Set;

/**
 * The per-account settings of Clouddriver's Kubernetes account that change what is cached and how.
 *
 * @param onlySpinnakerManaged account {@code onlySpinnakerManaged}: objects without a {@code
 *     moniker.spinnaker.io/application} annotation are not cached
 * @param cacheAllApplicationRelationships account {@code cacheAllApplicationRelationships}: every
 *     cached kind (not only load balancers, security groups, server groups and managers) is linked
 *     to its application
 * @param cachedTypes the cache types cached for the account; null means every kind
 */
public record FormatOptions(
    boolean onlySpinnakerManaged,
    boolean cacheAllApplicationRelationships,
    Set<String> cachedTypes) {

  /** Clouddriver's defaults: the classic infrastructure kinds, no further filtering. */
  public static final FormatOptions DEFAULTS =
      new FormatOptions(false, false, CacheTypes.DEFAULT_CACHED_TYPES);

  public boolean caches(String type) {
    return cachedTypes == null || cachedTypes.contains(type);
  }

  public FormatOptions withOnlySpinnakerManaged(boolean value) {
    return new FormatOptions(value, cacheAllApplicationRelationships, cachedTypes);
  }

  public FormatOptions withCacheAllApplicationRelationships(boolean value) {
    return new FormatOptions(onlySpinnakerManaged, value, cachedTypes);
  }

  public FormatOptions withCachedTypes(Set<String> types) {
    return new FormatOptions(onlySpinnakerManaged, cacheAllApplicationRelationships, types);
  }
}
