package io.spinagent.plugin.grpc;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AgentWelcomeListener;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.ResumePoints;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.identity.ReplicaIdentity;
import java.time.Clock;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link AgentChannel} with the plugin's Spring context, so stopping the plugin or
 * Clouddriver frees the agent port. It starts last ({@link StartupPhases#AGENT_PORT}): agents
 * connect only once everything they reach is running, and are disconnected first when the plugin
 * stops.
 */
public final class AgentGrpcServer implements SmartLifecycle {

  private final SpinAgentProperties properties;
  private final ReplicaIdentity replica;
  private final AccountRegistry accounts;
  private final AgentWelcomeListener welcomeListener;
  private final SessionRegistry sessions;
  private final ChangeSink sink;
  private final ResumePoints resumePoints;
  private final MeterRegistry meters;
  private volatile AgentChannel channel;

  public AgentGrpcServer(
      SpinAgentProperties properties,
      ReplicaIdentity replica,
      AccountRegistry accounts,
      AgentWelcomeListener welcomeListener,
      SessionRegistry sessions,
      ChangeSink sink,
      ResumePoints resumePoints,
      MeterRegistry meters) {
    this.properties = properties;
    this.replica = replica;
    this.accounts = accounts;
    this.welcomeListener = welcomeListener;
    this.sessions = sessions;
    this.sink = sink;
    this.resumePoints = resumePoints;
    this.meters = meters;
  }

  @Override
  public synchronized void start() {
    channel =
        AgentChannel.start(
            properties,
            replica.id(),
            accounts,
            welcomeListener,
            sessions,
            sink,
            resumePoints,
            meters,
            Clock.systemUTC());
  }

  @Override
  public synchronized void stop() {
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }

  @Override
  public boolean isRunning() {
    return channel != null;
  }

  @Override
  public int getPhase() {
    return StartupPhases.AGENT_PORT;
  }

  /** The port actually bound; -1 when stopped. */
  public int boundPort() {
    AgentChannel running = channel;
    return running == null ? -1 : running.port();
  }
}
