package io.spinagent.plugin.tunnel;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
@EnableConfigurationProperties({TunnelProperties.class, OperationsProperties.class})
public class TunnelConfiguration {

  @Bean
  TunnelTokens tunnelTokens() {
    return new TunnelTokens();
  }
}
