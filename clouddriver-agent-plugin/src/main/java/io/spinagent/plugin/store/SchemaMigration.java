package io.spinagent.plugin.store;

import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.config.StartupStep;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one step that brings SpinAgent's tables in Clouddriver's database up to date, run first when
 * the plugin starts ({@link StartupPhases#DATABASE}): nothing reads or writes them before it, and
 * nothing else migrates them. It also warns when this Clouddriver does not read its cache from the
 * database, where SpinAgent writes it.
 */
public final class SchemaMigration extends StartupStep {

  private static final Logger log = LoggerFactory.getLogger(SchemaMigration.class);

  private final DSLContext jooq;
  private final boolean clouddriverReadsSqlCache;

  /**
   * @param clouddriverReadsSqlCache Clouddriver's {@code sql.cache.enabled}
   */
  public SchemaMigration(DSLContext jooq, boolean clouddriverReadsSqlCache) {
    super(StartupPhases.DATABASE);
    this.jooq = jooq;
    this.clouddriverReadsSqlCache = clouddriverReadsSqlCache;
  }

  @Override
  protected void run() {
    SpinAgentSchema.migrate(jooq);
    if (!clouddriverReadsSqlCache) {
      log.warn(
          "sql.enabled without sql.cache.enabled: SpinAgent writes the cats_v1_* tables, but this"
              + " Clouddriver reads its cache from elsewhere, so Deck will not show agent"
              + " accounts");
    }
  }
}
