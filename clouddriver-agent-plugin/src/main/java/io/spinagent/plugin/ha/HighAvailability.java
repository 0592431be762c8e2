package io.spinagent.plugin.ha;

import com.sun.net.httpserver.HttpHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.ConnectedAgents;
import io.spinagent.plugin.config.StartupPhases;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * This replica's part in a group of Clouddriver replicas sharing one database and {@code
 * spinagent.ha.shared-secret}: its forwarding endpoint, the account ownership and connected agents
 * it records, the forwarder that reaches the other owners and the client that sends them account
 * commands. It starts ({@link StartupPhases#REPLICAS}) before the tunnel and the agent port and
 * stops after them: ownership is recorded with the endpoint's address from the first agent on, and
 * released after the last one left.
 */
public final class HighAvailability implements ReplicaGroup, SmartLifecycle {

  /**
   * The owner answers 504 itself after the operations timeout; the forwarder waits a little longer.
   */
  private static final Duration FORWARDING_MARGIN = Duration.ofSeconds(5);

  private final HaProperties properties;
  private final MeterRegistry meters;
  private final OwnershipKeeper keeper;
  private final OwnerForwarder forwarder;
  private final ReplicaCommands commands;
  private final AgentPresence presence;
  private volatile ForwardingEndpoint endpoint;
  private volatile HttpHandler tunnel;
  private volatile HttpHandler commandHandler;

  /**
   * @param owners {@code spinagent_account_owners}
   * @param agents {@code spinagent_connected_agents}
   * @param connected the agents connected to this replica
   * @param operationsTimeout {@code spinagent.operations.timeout}: the owner answers a forwarded
   *     request's client itself after it
   * @param commandTimeout {@code spinagent.accounts.command-timeout}: the owner answers a forwarded
   *     account command after it
   */
  public HighAvailability(
      HaProperties properties,
      AccountOwnerTable owners,
      ConnectedAgentTable agents,
      ConnectedAgents connected,
      String replicaId,
      Duration operationsTimeout,
      Duration commandTimeout,
      MeterRegistry meters,
      Clock clock) {
    this.properties = properties;
    this.meters = meters;
    this.keeper =
        new OwnershipKeeper(owners, replicaId, this::endpointUrl, properties, meters, clock);
    this.forwarder =
        new OwnerForwarder(properties, operationsTimeout.plus(FORWARDING_MARGIN), meters);
    this.commands = new ReplicaCommands(properties, commandTimeout.plus(FORWARDING_MARGIN), meters);
    this.presence =
        new AgentPresence(agents, connected, replicaId, this::endpointUrl, properties, clock);
  }

  /** The ownership records. */
  public OwnershipKeeper keeper() {
    return keeper;
  }

  /** The forwarder of tunnel requests to the replica that owns their account. */
  public OwnerForwarder forwarder() {
    return forwarder;
  }

  /** The client that sends account commands to their owner. */
  public ReplicaCommands commands() {
    return commands;
  }

  @Override
  public void serveTunnelWith(HttpHandler tunnel) {
    this.tunnel = tunnel;
    ForwardingEndpoint running = endpoint;
    if (running != null) {
      running.serveWith(tunnel);
    }
  }

  @Override
  public void serveCommandsWith(HttpHandler commands) {
    this.commandHandler = commands;
    ForwardingEndpoint running = endpoint;
    if (running != null) {
      running.serveCommandsWith(commands);
    }
  }

  @Override
  public String forwardingUrl() {
    ForwardingEndpoint running = endpoint;
    return running == null ? null : running.url();
  }

  private String endpointUrl() {
    ForwardingEndpoint running = endpoint;
    if (running == null) {
      throw new IllegalStateException("the replica forwarding endpoint is not running");
    }
    return running.url();
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    keeper.onStateChange(account, previous);
  }

  /** The replica whose live agent stream serves {@code account}, when it is another one. */
  @Override
  public Optional<String> replicaServing(String account) {
    return liveOwnerElsewhere(account).map(AccountOwner::replicaId);
  }

  @Override
  public Optional<AccountOwner> liveOwnerElsewhere(String account) {
    return keeper.liveOwnerElsewhere(account);
  }

  @Override
  public Optional<AccountOwner> replicaOfAgentElsewhere(
      String account, String agentId, String zoneId) {
    return presence
        .replicaElsewhere(agentId, zoneId)
        .map(
            row ->
                new AccountOwner(
                    account,
                    row.replicaId(),
                    row.forwardUrl(),
                    row.agentId(),
                    row.heartbeatAt(),
                    row.heartbeatAt()));
  }

  @Override
  public synchronized void start() {
    if (endpoint == null) {
      endpoint = ForwardingEndpoint.start(properties, meters);
      endpoint.serveWith(tunnel);
      endpoint.serveCommandsWith(commandHandler);
      keeper.start();
      presence.start();
    }
  }

  @Override
  public synchronized void stop() {
    if (endpoint != null) {
      presence.stop();
      keeper.stop();
      endpoint.close();
      endpoint = null;
    }
  }

  @Override
  public boolean isRunning() {
    return endpoint != null;
  }

  @Override
  public int getPhase() {
    return StartupPhases.REPLICAS;
  }
}
