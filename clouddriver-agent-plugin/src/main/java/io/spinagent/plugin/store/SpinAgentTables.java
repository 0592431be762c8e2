package io.spinagent.plugin.store;

import java.util.Optional;
import org.jooq.DSLContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * SpinAgent's own tables in Clouddriver's database, brought up to date before first use; absent
 * when Clouddriver runs without kork-sql (one replica, everything in memory).
 */
public final class SpinAgentTables {

  private final DSLContext jooq;

  private SpinAgentTables(DSLContext jooq) {
    this.jooq = jooq;
  }

  public Optional<DSLContext> jooq() {
    return Optional.ofNullable(jooq);
  }

  @Configuration
  public static class Beans {
    @Bean
    SpinAgentTables spinAgentTables(ObjectProvider<DSLContext> jooq) {
      DSLContext context = jooq.getIfAvailable();
      if (context != null) {
        SpinAgentSchema.migrate(context);
      }
      return new SpinAgentTables(context);
    }
  }
}
