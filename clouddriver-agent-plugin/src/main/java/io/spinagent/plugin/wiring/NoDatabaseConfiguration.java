package io.spinagent.plugin.wiring;

import io.spinagent.plugin.accounts.AccountBindings;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.accounts.BindingPolicy;
import io.spinagent.plugin.accounts.SwitchedOffRecord;
import io.spinagent.plugin.cache.DiscardingSink;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.store.NoDatabaseNotice;
import io.spinagent.plugin.tunnel.TunnelAuthority;
import io.spinagent.plugin.tunnel.TunnelTokens;
import io.spinagent.plugin.tunnel.history.InMemoryOperationHistory;
import io.spinagent.plugin.tunnel.history.OperationHistoryProperties;
import java.time.Clock;
import java.util.Set;
import org.jooq.DSLContext;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The plugin without Clouddriver's SQL database (no kork-sql {@link DSLContext}): one replica
 * alone, which keeps nothing it does not need. It says so when it starts.
 */
@Configuration
@ConditionalOnMissingBean(DSLContext.class)
public class NoDatabaseConfiguration {

  @Bean
  NoDatabaseNotice noDatabaseNotice() {
    return new NoDatabaseNotice();
  }

  @Bean
  AccountRegistry accountRegistry(SpinAgentProperties properties) {
    return new AccountRegistry(
        Clock.systemUTC(),
        properties.getAccounts().getGracePeriod(),
        names -> Set.of(),
        AccountBindings.inMemory(),
        BindingPolicy.from(properties.getAccounts().getBinding()),
        SwitchedOffRecord.NONE);
  }

  /** Accounts live in the registry only; dynamic accounts are refused, naming the database. */
  @Bean
  AccountStore accountStore() {
    return AccountStore.NONE;
  }

  /** Nothing would read what agents stream: it is acknowledged and dropped. */
  @Bean
  DiscardingSink changeSink() {
    return new DiscardingSink();
  }

  /** Nothing is stored, so nothing is resumable: agents list every kind. */
  @Bean
  ResumePoints resumePoints() {
    return ResumePoints.NONE;
  }

  @Bean
  TunnelTokens.Store tunnelTokenStore() {
    return TunnelTokens.Store.inMemory();
  }

  @Bean
  TunnelAuthority.Store tunnelAuthorityStore() {
    return TunnelAuthority.Store.inMemory();
  }

  /** This replica's last operations, in a bounded ring. */
  @Bean
  InMemoryOperationHistory operationHistory(OperationHistoryProperties properties) {
    return new InMemoryOperationHistory(properties.getMemoryEntries());
  }
}
