package io.spinagent.plugin.config;

import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.cache.InMemoryObjectStore;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import java.time.Clock;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The pieces the agent channel shares with the rest of the plugin. */
@Configuration
public class ChannelConfiguration {

  @Bean
  InMemoryObjectStore objectStore() {
    return new InMemoryObjectStore();
  }

  @Bean
  AccountRegistry accountRegistry(SpinAgentProperties properties, List<AccountLifecycleListener> listeners) {
    return new AccountRegistry(Clock.systemUTC(), properties.getAccounts().getGracePeriod(), listeners);
  }

  @Bean
  SessionRegistry sessionRegistry() {
    return new SessionRegistry();
  }
}
