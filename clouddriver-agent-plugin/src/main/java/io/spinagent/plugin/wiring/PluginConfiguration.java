package io.spinagent.plugin.wiring;

import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinitionSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.accounts.AutoMigration;
import io.spinagent.plugin.accounts.ClouddriverAccountDefinitions;
import io.spinagent.plugin.accounts.DynamicAccountLimits;
import io.spinagent.plugin.accounts.DynamicAccountReconciler;
import io.spinagent.plugin.accounts.DynamicAccounts;
import io.spinagent.plugin.accounts.OrphanSweep;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.AgentGrpcServer;
import io.spinagent.plugin.grpc.ChannelParts;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.ha.HaProperties;
import io.spinagent.plugin.ha.ReplicaGroup;
import io.spinagent.plugin.identity.ReplicaIdentity;
import io.spinagent.plugin.tunnel.OperationsProperties;
import io.spinagent.plugin.tunnel.RemoteRoutes;
import io.spinagent.plugin.tunnel.TunnelAuthority;
import io.spinagent.plugin.tunnel.TunnelKubeconfigs;
import io.spinagent.plugin.tunnel.TunnelOperationListener;
import io.spinagent.plugin.tunnel.TunnelProperties;
import io.spinagent.plugin.tunnel.TunnelServerLifecycle;
import io.spinagent.plugin.tunnel.TunnelTokens;
import io.spinagent.plugin.tunnel.history.OperationHistory;
import io.spinagent.plugin.tunnel.history.OperationHistoryProperties;
import io.spinagent.plugin.tunnel.history.OperationRecorder;
import io.spinagent.plugin.tunnel.history.TunnelMetrics;
import io.spinagent.plugin.web.AccountCommands;
import io.spinagent.plugin.web.CommandRouting;
import io.spinagent.plugin.web.CredentialsInterceptor;
import java.time.Clock;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The plugin's Spring wiring, whatever Clouddriver offers it. Each bean is one constructor call; no
 * bean method reads the database, starts a thread or registers a listener: that work runs when the
 * context starts, in the phases of {@link io.spinagent.plugin.config.StartupPhases}. What differs
 * with and without Clouddriver's SQL database is in {@link SqlDatabaseConfiguration} and {@link
 * NoDatabaseConfiguration}.
 */
@Configuration
@EnableConfigurationProperties({
  SpinAgentProperties.class,
  HaProperties.class,
  TunnelProperties.class,
  OperationsProperties.class,
  OperationHistoryProperties.class
})
public class PluginConfiguration {

  @Bean
  ReplicaIdentity replicaIdentity() {
    return new ReplicaIdentity();
  }

  /** The plugin's own meters, only when Clouddriver offers no Micrometer registry. */
  @Bean
  @ConditionalOnMissingBean(MeterRegistry.class)
  SimpleMeterRegistry spinAgentMeterRegistry() {
    return new SimpleMeterRegistry();
  }

  @Bean
  SessionRegistry sessionRegistry() {
    return new SessionRegistry();
  }

  /** Clouddriver's account storage, when Clouddriver has one ({@code account.storage.enabled}). */
  @Bean
  @ConditionalOnBean({AccountDefinitionRepository.class, AccountDefinitionMapper.class})
  ClouddriverAccountDefinitions clouddriverAccountDefinitions(
      AccountDefinitionRepository repository,
      AccountDefinitionMapper mapper,
      @Qualifier(KUBERNETES_ACCOUNT_SOURCE)
          Optional<CredentialsDefinitionSource<?>> kubernetesSources) {
    return new ClouddriverAccountDefinitions(repository, mapper, kubernetesSources);
  }

  /**
   * Clouddriver's bean listing every Kubernetes account definition, account storage first and then
   * its configuration files (clouddriver-kubernetes' {@code
   * KubernetesAccountDefinitionSourceConfiguration}, present with account storage on).
   */
  static final String KUBERNETES_ACCOUNT_SOURCE = "kubernetesAccountSource";

  @Bean
  DynamicAccounts dynamicAccounts(
      AccountRegistry registry,
      SessionRegistry sessions,
      AccountStore store,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      SpinAgentProperties properties,
      ReplicaGroup replicas) {
    return new DynamicAccounts(
        registry,
        sessions,
        store,
        clouddriver,
        new DynamicAccountLimits(
            properties.getAccounts().getCommandTimeout(),
            properties.getAccounts().getMaxDynamicPerAgent(),
            properties.getAccounts().getMaxDynamicPerZone()),
        replicas);
  }

  /** Sends agents their dynamic accounts as they connect; withdraws those gone. */
  @Bean
  DynamicAccountReconciler dynamicAccountReconciler(
      AccountRegistry registry, SessionRegistry sessions, AccountStore store) {
    return new DynamicAccountReconciler(registry, sessions, store);
  }

  /** Removes accounts orphaned past the grace period; withdraws the dynamic ones from agents. */
  @Bean
  OrphanSweep orphanSweep(
      AccountRegistry registry,
      DynamicAccountReconciler reconciler,
      SpinAgentProperties properties) {
    return new OrphanSweep(registry, reconciler, properties.getAccounts().getGracePeriod());
  }

  /** Off (no thread) unless {@code spinagent.accounts.auto-migrate.name-patterns} are given. */
  @Bean
  AutoMigration autoMigration(
      SpinAgentProperties properties,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      AccountStore store,
      AccountRegistry registry,
      SessionRegistry sessions,
      DynamicAccounts dynamicAccounts) {
    return new AutoMigration(
        properties.getAccounts().getAutoMigrate(),
        clouddriver,
        store,
        registry,
        sessions,
        dynamicAccounts);
  }

  /** The accounts API's commands, run here or on the replica holding the agents' stream. */
  @Bean
  AccountCommands accountCommands(
      AccountRegistry registry,
      AccountStore store,
      DynamicAccounts dynamicAccounts,
      CommandRouting commandRouting,
      ReplicaGroup replicas,
      ReplicaIdentity replica,
      SpinAgentProperties properties) {
    return new AccountCommands(
        registry,
        store,
        dynamicAccounts,
        commandRouting,
        replicas,
        replica.id(),
        properties.getAccounts().getMaxRequestBody().toBytes());
  }

  /** Clouddriver's {@code /credentials} writes of Kubernetes accounts, when switched on. */
  @Bean
  CredentialsInterceptor credentialsInterceptor(
      AccountCommands commands,
      AccountStore store,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      SpinAgentProperties properties) {
    return new CredentialsInterceptor(
        properties.getAccounts().getCredentialsInterceptor(),
        commands,
        store,
        clouddriver,
        properties.getAccounts().getMaxRequestBody().toBytes());
  }

  @Bean
  TunnelTokens tunnelTokens(TunnelTokens.Store store) {
    return new TunnelTokens(store);
  }

  @Bean
  OperationRecorder operationRecorder(OperationHistory history, ReplicaIdentity replica) {
    return new OperationRecorder(history, replica.id());
  }

  @Bean
  TunnelMetrics tunnelMetrics(MeterRegistry meters) {
    return new TunnelMetrics(meters);
  }

  @Bean
  TunnelServerLifecycle tunnelServerLifecycle(
      TunnelProperties tunnel,
      OperationsProperties operations,
      TunnelTokens tokens,
      TunnelAuthority.Store authorities,
      AccountRegistry accounts,
      SessionRegistry sessions,
      ReplicaGroup replicas,
      RemoteRoutes remoteRoutes,
      ReplicaIdentity replica,
      OperationRecorder operationRecorder,
      TunnelMetrics tunnelMetrics) {
    return new TunnelServerLifecycle(
        tunnel,
        operations,
        tokens,
        authorities,
        accounts,
        sessions,
        replicas,
        remoteRoutes,
        replica.id(),
        TunnelOperationListener.all(operationRecorder, tunnelMetrics));
  }

  @Bean
  TunnelKubeconfigs tunnelKubeconfigs(TunnelServerLifecycle tunnel, TunnelTokens tokens) {
    return new TunnelKubeconfigs(tunnel, tokens);
  }

  /** What the agent channel's sessions work with; the reconciler decides agents' claims first. */
  @Bean
  ChannelParts channelParts(
      SpinAgentProperties properties,
      ReplicaIdentity replica,
      AccountRegistry accounts,
      DynamicAccountReconciler reconciler,
      SessionRegistry sessions,
      ChangeSink sink,
      ResumePoints resumePoints,
      MeterRegistry meters) {
    return new ChannelParts(
        properties,
        replica.id(),
        accounts,
        reconciler,
        sessions,
        sink,
        resumePoints,
        meters,
        Clock.systemUTC());
  }

  @Bean
  AgentGrpcServer agentGrpcServer(ChannelParts parts) {
    return new AgentGrpcServer(parts);
  }
}
