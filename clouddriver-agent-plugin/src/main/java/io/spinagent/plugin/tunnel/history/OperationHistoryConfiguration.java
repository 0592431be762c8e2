package io.spinagent.plugin.tunnel.history;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.spinagent.plugin.identity.ReplicaIdentity;
import io.spinagent.plugin.store.SpinAgentSchema;
import java.time.Clock;
import org.jooq.DSLContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The operation history: in {@code spinagent_operations} when Clouddriver runs with kork-sql (its
 * DSLContext exists), otherwise in a bounded in-memory ring of this replica's last operations.
 */
@Configuration
@EnableConfigurationProperties(OperationHistoryProperties.class)
public class OperationHistoryConfiguration {

  @Bean(destroyMethod = "close")
  OperationHistory operationHistory(
      ObjectProvider<DSLContext> jooq,
      OperationHistoryProperties properties,
      ObjectProvider<MeterRegistry> meters) {
    DSLContext context = jooq.getIfAvailable();
    if (context == null) {
      return new InMemoryOperationHistory(properties.getMemoryEntries());
    }
    SpinAgentSchema.migrate(context);
    return new SqlOperationHistory(
        context, properties, meters.getIfAvailable(SimpleMeterRegistry::new), Clock.systemUTC());
  }

  @Bean
  OperationRecorder operationRecorder(OperationHistory history, ReplicaIdentity replica) {
    return new OperationRecorder(history, replica.id());
  }
}
