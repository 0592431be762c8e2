package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.store.SpinAgentTables;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The tunnel's secrets: with a database, one CA and one token per account shared by every replica
 * (so the kubeconfig stored once works against any replica's tunnel); without, this replica's own,
 * in memory.
 */
@Configuration
@EnableConfigurationProperties({TunnelProperties.class, OperationsProperties.class})
public class TunnelConfiguration {

  @Bean
  TunnelTokens tunnelTokens(SpinAgentTables tables) {
    return tables
        .jooq()
        .map(jooq -> new TunnelTokens(new SqlTunnelTokens(jooq, Clock.systemUTC())))
        .orElseGet(TunnelTokens::new);
  }

  @Bean
  TunnelAuthority tunnelAuthority(SpinAgentTables tables) {
    return tables
        .jooq()
        .map(jooq -> TunnelAuthority.shared(new SqlTunnelAuthority(jooq, Clock.systemUTC())))
        .orElseGet(TunnelAuthority::generate);
  }
}
