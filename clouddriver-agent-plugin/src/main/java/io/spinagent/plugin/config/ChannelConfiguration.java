package io.spinagent.plugin.config;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.cache.AccountFormatOptions;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.DiscardingSink;
import io.spinagent.plugin.cache.sql.SqlCacheConfiguration;
import io.spinagent.plugin.cache.sql.SqlWriterThreads;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import org.jooq.DSLContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The pieces the agent channel shares with the rest of the plugin. */
@Configuration
public class ChannelConfiguration {

  /**
   * Where agent streams go: Clouddriver's SQL cache when kork-sql is enabled (its DSLContext
   * exists); otherwise nowhere: nothing would read them, so they are acknowledged and dropped.
   */
  @Bean
  ChangeSink changeSink(
      ObjectProvider<DSLContext> jooq,
      SpinAgentProperties properties,
      Environment environment,
      ObjectProvider<AccountRegistry> accounts,
      SqlWriterThreads sqlWriterThreads) {
    DSLContext context = jooq.getIfAvailable();
    if (context != null) {
      return SqlCacheConfiguration.sqlWriter(
          context,
          properties,
          environment,
          new AccountFormatOptions(accounts::getIfAvailable),
          sqlWriterThreads);
    }
    return new DiscardingSink();
  }

  /**
   * The SQL writer's threads (none start unless it writes), stopped when the plugin's context
   * closes.
   */
  @Bean(destroyMethod = "close")
  SqlWriterThreads sqlWriterThreads(SpinAgentProperties properties) {
    return new SqlWriterThreads(properties.getCache().getWriterThreads());
  }

  @Bean
  SessionRegistry sessionRegistry() {
    return new SessionRegistry();
  }
}
