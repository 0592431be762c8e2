package io.spinagent.plugin.grpc;

import io.spinagent.plugin.config.StartupPhases;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link AgentChannel} with the plugin's Spring context, so stopping the plugin or
 * Clouddriver frees the agent port. It starts last ({@link StartupPhases#AGENT_PORT}): agents
 * connect only once everything they reach is running, and are disconnected first when the plugin
 * stops.
 */
public final class AgentGrpcServer implements SmartLifecycle {

  private final ChannelParts parts;
  private volatile AgentChannel channel;

  public AgentGrpcServer(ChannelParts parts) {
    this.parts = parts;
  }

  @Override
  public synchronized void start() {
    channel = AgentChannel.startOnAgentPort(parts);
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
