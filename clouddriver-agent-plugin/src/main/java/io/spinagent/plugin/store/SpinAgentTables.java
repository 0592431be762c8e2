package io.spinagent.plugin.store;

import java.util.Optional;
import org.jooq.DSLContext;

/**
 * SpinAgent's own tables in Clouddriver's database, brought up to date before first use; absent
 * when Clouddriver runs without kork-sql (one replica, everything in memory).
 */
public final class SpinAgentTables {

  private final DSLContext jooq;

  SpinAgentTables(DSLContext jooq) {
    this.jooq = jooq;
  }

  public Optional<DSLContext> jooq() {
    return Optional.ofNullable(jooq);
  }
}
