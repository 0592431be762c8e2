package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.config.StartupStep;

/**
 * Creates, when the plugin starts ({@link StartupPhases#DATABASE}), the cache tables of every type
 * Clouddriver's Kubernetes provider caches and searches ({@link CacheTypes#CLOUDDRIVER_TYPES}), so
 * that none of its searches fails on a table no agent has written yet. The writer creates the
 * tables of any other type on first use.
 */
public final class CacheTablesStartup extends StartupStep {

  private final CacheTables tables;

  public CacheTablesStartup(CacheTables tables) {
    super(StartupPhases.DATABASE);
    this.tables = tables;
  }

  @Override
  protected void run() {
    tables.createClouddriverTables();
  }
}
