package io.spinagent.plugin.ha;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.spinagent.plugin.identity.ReplicaIdentity;
import io.spinagent.plugin.store.SpinAgentTables;
import io.spinagent.plugin.tunnel.OperationsProperties;
import java.time.Clock;
import java.time.Duration;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
@EnableConfigurationProperties(HaProperties.class)
public class HaConfiguration {

  private static final Logger log = LoggerFactory.getLogger(HaConfiguration.class);

  /**
   * The owner answers 504 itself after the operations timeout; the forwarder waits a little longer.
   */
  private static final Duration FORWARDING_MARGIN = Duration.ofSeconds(5);

  @Bean
  HighAvailability highAvailability(
      HaProperties properties,
      OperationsProperties operations,
      SpinAgentTables tables,
      ReplicaIdentity replica,
      ObjectProvider<MeterRegistry> meters) {
    DSLContext jooq = tables.jooq().orElse(null);
    if (jooq == null) {
      log.info(
          "No SQL database (kork-sql): this Clouddriver replica works alone; tunnel secrets stay in"
              + " memory");
      return HighAvailability.off();
    }
    if (properties.getSharedSecret().isBlank()) {
      log.warn(
          "spinagent.ha.shared-secret is not set: replica '{}' does not forward tunnel requests to"
              + " other replicas. Run one Clouddriver replica, or set the same secret on all of"
              + " them.",
          replica.id());
      return HighAvailability.off();
    }
    return HighAvailability.on(
        properties,
        new AccountOwnerTable(jooq),
        replica.id(),
        operations.getTimeout().plus(FORWARDING_MARGIN),
        meters.getIfAvailable(SimpleMeterRegistry::new),
        Clock.systemUTC());
  }
}
