package io.spinagent.plugin.store;

import io.spinagent.plugin.config.StartupPhases;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The one step that brings SpinAgent's tables in Clouddriver's database up to date, run first when
 * the plugin starts ({@link StartupPhases#DATABASE}): nothing reads or writes them before it, and
 * nothing else migrates them. It also warns when this Clouddriver does not read its cache from the
 * database, where SpinAgent writes it.
 */
public final class SchemaMigration implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(SchemaMigration.class);

  private final DSLContext jooq;
  private final boolean clouddriverReadsSqlCache;
  private volatile boolean running;

  /**
   * @param clouddriverReadsSqlCache Clouddriver's {@code sql.cache.enabled}
   */
  public SchemaMigration(DSLContext jooq, boolean clouddriverReadsSqlCache) {
    this.jooq = jooq;
    this.clouddriverReadsSqlCache = clouddriverReadsSqlCache;
  }

  @Override
  public void start() {
    SpinAgentSchema.migrate(jooq);
    if (!clouddriverReadsSqlCache) {
      log.warn(
          "sql.enabled without sql.cache.enabled: SpinAgent writes the cats_v1_* tables, but this"
              + " Clouddriver reads its cache from elsewhere, so Deck will not show agent"
              + " accounts");
    }
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
