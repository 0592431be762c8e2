package io.spinagent.plugin.store;

import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.config.StartupStep;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says, when the plugin starts ({@link StartupPhases#DATABASE}) without Clouddriver's SQL database
 * (no kork-sql {@code DSLContext}), what that means for SpinAgent: what agents stream is
 * acknowledged and dropped, since Clouddriver reads its cache from the database only; accounts live
 * in this replica's memory; and this replica works alone.
 */
public final class NoDatabaseNotice extends StartupStep {

  private static final Logger log = LoggerFactory.getLogger(NoDatabaseNotice.class);

  public NoDatabaseNotice() {
    super(StartupPhases.DATABASE);
  }

  @Override
  protected void run() {
    log.warn(
        "SpinAgent runs without Clouddriver's SQL database (sql.enabled): what agents stream is"
            + " acknowledged and dropped, so nothing reaches Clouddriver's cache; accounts live in"
            + " memory only, dynamic accounts (POST /spinagent/accounts) are unavailable and agent"
            + " accounts do not become Clouddriver accounts; this replica works alone, with tunnel"
            + " secrets in memory");
  }
}
