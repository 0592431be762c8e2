package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.config.StartupPhases;
import org.springframework.context.SmartLifecycle;

/**
 * Creates, when the plugin starts ({@link StartupPhases#DATABASE}), the cache tables of every type
 * Clouddriver's Kubernetes provider caches and searches ({@link CacheTypes#CLOUDDRIVER_TYPES}), so
 * that none of its searches fails on a table no agent has written yet. The writer creates the
 * tables of any other type on first use.
 */
public final class CacheTablesStartup implements SmartLifecycle {

  private final CacheTables tables;
  private volatile boolean running;

  public CacheTablesStartup(CacheTables tables) {
    this.tables = tables;
  }

  @Override
  public void start() {
    tables.createClouddriverTables();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return StartupPhases.DATABASE;
  }
}
