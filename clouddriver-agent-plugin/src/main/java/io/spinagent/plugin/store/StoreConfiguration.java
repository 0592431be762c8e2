package io.spinagent.plugin.store;

import org.jooq.DSLContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class StoreConfiguration {

  /** Clouddriver's database when it runs with kork-sql (its DSLContext exists), migrated first. */
  @Bean
  SpinAgentTables spinAgentTables(ObjectProvider<DSLContext> jooq) {
    DSLContext context = jooq.getIfAvailable();
    if (context != null) {
      SpinAgentSchema.migrate(context);
    }
    return new SpinAgentTables(context);
  }
}
