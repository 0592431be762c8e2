package io.spinagent.plugin.wiring;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountTable;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.ha.AccountOwnerTable;
import io.spinagent.plugin.ha.ConnectedAgentTable;
import io.spinagent.plugin.ha.HaProperties;
import io.spinagent.plugin.ha.HighAvailability;
import io.spinagent.plugin.ha.NoSharedSecretNotice;
import io.spinagent.plugin.ha.ReplicaGroup;
import io.spinagent.plugin.identity.ReplicaIdentity;
import io.spinagent.plugin.tunnel.OperationsProperties;
import io.spinagent.plugin.tunnel.OwnerRoutes;
import io.spinagent.plugin.tunnel.RemoteRoutes;
import io.spinagent.plugin.tunnel.TunnelTokens;
import io.spinagent.plugin.web.CommandRouting;
import io.spinagent.plugin.web.OwnerCommands;
import java.time.Clock;
import org.jooq.DSLContext;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * This replica among the Clouddriver replicas sharing its database: {@link Shared} when they share
 * one and {@code spinagent.ha.shared-secret} (ownership, forwarding, account commands sent to their
 * owner), {@link Alone} otherwise (everything served here or refused here).
 */
public class ReplicaGroupConfiguration {

  private static final String SHARED_SECRET = "spinagent.ha.shared-secret";

  @Configuration
  @ConditionalOnBean(DSLContext.class)
  @Conditional(SharedSecretSet.class)
  public static class Shared {

    @Bean
    HighAvailability highAvailability(
        HaProperties properties,
        AccountOwnerTable owners,
        ConnectedAgentTable agents,
        SessionRegistry sessions,
        ReplicaIdentity replica,
        OperationsProperties operations,
        SpinAgentProperties spinAgent,
        MeterRegistry meters) {
      return new HighAvailability(
          properties,
          owners,
          agents,
          sessions,
          replica.id(),
          operations.getTimeout(),
          spinAgent.getAccounts().getCommandTimeout(),
          meters,
          Clock.systemUTC());
    }

    @Bean
    OwnerRoutes remoteRoutes(HighAvailability highAvailability, TunnelTokens tokens) {
      return new OwnerRoutes(
          tokens, highAvailability.keeper(), highAvailability.forwarder(), Clock.systemUTC());
    }

    @Bean
    OwnerCommands commandRouting(
        HighAvailability highAvailability, SessionRegistry sessions, AccountTable table) {
      return new OwnerCommands(highAvailability, highAvailability.commands(), sessions, table);
    }
  }

  @Configuration
  @Conditional(NotShared.class)
  public static class Alone {

    @Bean
    ReplicaGroup replicaGroup() {
      return ReplicaGroup.ALONE;
    }

    @Bean
    RemoteRoutes remoteRoutes() {
      return RemoteRoutes.NONE;
    }

    @Bean
    CommandRouting commandRouting() {
      return CommandRouting.HERE;
    }

    /** With a database, a second replica is likely: say why this one does not share. */
    @Bean
    @ConditionalOnBean(DSLContext.class)
    NoSharedSecretNotice noSharedSecretNotice(ReplicaIdentity replica) {
      return new NoSharedSecretNotice(replica.id());
    }
  }

  /**
   * {@code spinagent.ha.shared-secret} is set to something other than blanks, in any spelling that
   * binds to {@link HaProperties} (e.g. {@code SPINAGENT_HA_SHAREDSECRET}).
   */
  static final class SharedSecretSet implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return Binder.get(context.getEnvironment())
          .bind(SHARED_SECRET, String.class)
          .map(secret -> !secret.isBlank())
          .orElse(false);
    }
  }

  /** Not {@link Shared}: no database, or no shared secret. */
  static final class NotShared extends NoneNestedConditions {

    NotShared() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnBean(DSLContext.class)
    @Conditional(SharedSecretSet.class)
    static final class SharedReplicas {}
  }
}
