package io.spinagent.plugin.wiring;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountStateRecorder;
import io.spinagent.plugin.accounts.AccountSyncWorker;
import io.spinagent.plugin.accounts.AccountTable;
import io.spinagent.plugin.accounts.AccountsStartup;
import io.spinagent.plugin.accounts.BindingPolicy;
import io.spinagent.plugin.accounts.ClouddriverAccountBridge;
import io.spinagent.plugin.accounts.ClouddriverAccountDefinitions;
import io.spinagent.plugin.cache.AccountFormatOptions;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.cache.sql.CacheTablesStartup;
import io.spinagent.plugin.cache.sql.CachedKinds;
import io.spinagent.plugin.cache.sql.SqlCacheWriter;
import io.spinagent.plugin.cache.sql.SqlWriterSettings;
import io.spinagent.plugin.cache.sql.SqlWriterThreads;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.ha.AccountOwnerTable;
import io.spinagent.plugin.ha.ConnectedAgentTable;
import io.spinagent.plugin.ha.ReplicaGroup;
import io.spinagent.plugin.identity.ReplicaIdentity;
import io.spinagent.plugin.store.SchemaMigration;
import io.spinagent.plugin.tunnel.SqlTunnelAuthority;
import io.spinagent.plugin.tunnel.SqlTunnelTokens;
import io.spinagent.plugin.tunnel.TunnelKubeconfigs;
import io.spinagent.plugin.tunnel.history.OperationHistoryProperties;
import io.spinagent.plugin.tunnel.history.SqlOperationHistory;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * What the plugin keeps in Clouddriver's SQL database, when Clouddriver runs with kork-sql ({@code
 * sql.enabled}: its {@link DSLContext} exists): the cache it writes, its own tables, and the
 * account state, ownership, tunnel secrets and operation history that the replicas share.
 */
@Configuration
@ConditionalOnBean(DSLContext.class)
public class SqlDatabaseConfiguration {

  @Bean
  SchemaMigration schemaMigration(DSLContext jooq, Environment environment) {
    return new SchemaMigration(
        jooq, environment.getProperty("sql.cache.enabled", Boolean.class, false));
  }

  @Bean
  AccountTable accountTable(DSLContext jooq) {
    return new AccountTable(jooq, Clock.systemUTC());
  }

  @Bean
  AccountRegistry accountRegistry(
      SpinAgentProperties properties, AccountTable table, ReplicaIdentity replica) {
    return new AccountRegistry(
        Clock.systemUTC(),
        properties.getAccounts().getGracePeriod(),
        table.servedByAnotherReplica(replica.id(), properties.getAccounts().getGracePeriod()),
        table,
        BindingPolicy.from(properties.getAccounts().getBinding()),
        table);
  }

  @Bean(destroyMethod = "shutdownNow")
  AccountSyncWorker accountSyncWorker() {
    return new AccountSyncWorker();
  }

  @Bean
  AccountStateRecorder accountStateRecorder(
      AccountTable table, ReplicaIdentity replica, AccountSyncWorker accountSyncWorker) {
    return new AccountStateRecorder(table, replica.id(), accountSyncWorker);
  }

  @Bean
  ClouddriverAccountBridge clouddriverAccountBridge(
      AccountRegistry registry,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      SpinAgentProperties properties,
      AccountTable table,
      TunnelKubeconfigs tunnelKubeconfigs,
      AccountSyncWorker accountSyncWorker,
      MeterRegistry meters) {
    return new ClouddriverAccountBridge(
        registry,
        clouddriver,
        properties.getAccounts(),
        table,
        tunnelKubeconfigs,
        accountSyncWorker,
        meters);
  }

  @Bean(destroyMethod = "close")
  SqlWriterThreads sqlWriterThreads(SpinAgentProperties properties) {
    return new SqlWriterThreads(properties.getCache().getWriterThreads());
  }

  /** The SQL writer's settings: SpinAgent's {@code spinagent.cache.*}, Clouddriver's namespace. */
  @Bean
  SqlWriterSettings sqlWriterSettings(SpinAgentProperties properties, Environment environment) {
    SpinAgentProperties.Cache cache = properties.getCache();
    return new SqlWriterSettings(
        new CachedKinds(cache.getKinds(), cache.getOmitKinds(), cache.isCacheAll()),
        cache.getRememberedObjects(),
        environment.getProperty("sql.table-namespace"));
  }

  /** Where agent streams go: Clouddriver's cats_v1_* tables. */
  @Bean
  SqlCacheWriter changeSink(
      DSLContext jooq,
      SqlWriterSettings settings,
      AccountRegistry registry,
      SqlWriterThreads sqlWriterThreads,
      MeterRegistry meters) {
    return new SqlCacheWriter(
        jooq,
        settings,
        new AccountFormatOptions(registry),
        sqlWriterThreads,
        meters,
        Clock.systemUTC());
  }

  @Bean
  CacheTablesStartup cacheTablesStartup(SqlCacheWriter changeSink) {
    return new CacheTablesStartup(changeSink.tables());
  }

  /** Where agents may resume watching from: the resume points the writer stores. */
  @Bean
  ResumePoints resumePoints(SqlCacheWriter changeSink) {
    return changeSink.resumePoints();
  }

  /**
   * The registry's listeners, in the order they hear of a change: ownership first, then the cache,
   * then the account's row, which Clouddriver's account definition reads.
   */
  @Bean
  AccountsStartup accountsStartup(
      AccountRegistry registry,
      ReplicaGroup replicas,
      SqlCacheWriter changeSink,
      AccountStateRecorder accountStateRecorder,
      ClouddriverAccountBridge clouddriverAccountBridge,
      AccountTable table,
      ReplicaIdentity replica,
      SpinAgentProperties properties,
      AccountSyncWorker accountSyncWorker) {
    return new AccountsStartup(
        registry,
        List.of(replicas, changeSink, accountStateRecorder, clouddriverAccountBridge),
        table,
        replica.id(),
        properties.getAccounts().getGracePeriod(),
        accountSyncWorker);
  }

  @Bean
  AccountOwnerTable accountOwnerTable(DSLContext jooq) {
    return new AccountOwnerTable(jooq);
  }

  @Bean
  ConnectedAgentTable connectedAgentTable(DSLContext jooq) {
    return new ConnectedAgentTable(jooq);
  }

  /** The tunnel's tokens, shared by every replica. */
  @Bean
  SqlTunnelTokens tunnelTokenStore(DSLContext jooq) {
    return new SqlTunnelTokens(jooq, Clock.systemUTC());
  }

  /** The tunnel's certificate authority, shared by every replica. */
  @Bean
  SqlTunnelAuthority tunnelAuthorityStore(DSLContext jooq) {
    return new SqlTunnelAuthority(jooq, Clock.systemUTC());
  }

  @Bean
  SqlOperationHistory operationHistory(
      DSLContext jooq, OperationHistoryProperties properties, MeterRegistry meters) {
    return new SqlOperationHistory(jooq, properties, meters, Clock.systemUTC());
  }
}
