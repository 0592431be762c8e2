package io.spinagent.plugin.cache.sql;

/**
 * The SQL writer's settings, as the plugin's configuration ({@code spinagent.cache.*}) and
 * Clouddriver's ({@code sql.table-namespace}) give them.
 *
 * @param kinds the kinds written ({@code kinds}, {@code omit-kinds}, {@code cache-all})
 * @param rememberedObjects most objects whose committed rows are kept in memory instead of read
 *     back by their next batch (and as many keys' relationship rows); 0 reads every batch's rows
 * @param tableNamespace Clouddriver's {@code sql.table-namespace}; null or blank: none
 */
public record SqlWriterSettings(CachedKinds kinds, int rememberedObjects, String tableNamespace) {

  /** Clouddriver's default kinds, {@code rememberedObjects} remembered, no table namespace. */
  public static SqlWriterSettings defaults(int rememberedObjects) {
    return new SqlWriterSettings(CachedKinds.defaults(), rememberedObjects, null);
  }
}
