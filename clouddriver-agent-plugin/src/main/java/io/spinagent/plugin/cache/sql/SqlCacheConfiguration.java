package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.store.SpinAgentSchema;
import java.time.Clock;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;

/**
 * Builds the SQL cache writer when Clouddriver runs with kork-sql ({@code sql.enabled}: its {@link
 * DSLContext} exists). Not a Spring configuration itself: ChannelConfiguration calls it, and falls
 * back to the in-memory store otherwise.
 */
public final class SqlCacheConfiguration {

  private static final Logger log = LoggerFactory.getLogger(SqlCacheConfiguration.class);

  private SqlCacheConfiguration() {}

  public static ChangeSink sqlWriter(
      DSLContext jooq,
      SpinAgentProperties properties,
      Environment environment,
      Function<String, FormatOptions> accountOptions,
      SqlWriterThreads threads) {
    if (!"true".equalsIgnoreCase(environment.getProperty("sql.cache.enabled"))) {
      log.warn(
          "sql.enabled without sql.cache.enabled: SpinAgent writes the cats_v1_* tables, but this"
              + " Clouddriver reads its cache from elsewhere, so Deck will not show agent"
              + " accounts");
    }
    SpinAgentSchema.migrate(jooq);
    return new SqlCacheWriter(
        jooq,
        environment.getProperty("sql.table-namespace"),
        CachedKinds.of(properties.getCache()),
        accountOptions,
        threads.batches(),
        threads.derivation(),
        Clock.systemUTC(),
        properties.getCache().getRememberedObjects());
  }
}
