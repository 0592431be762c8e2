package io.spinagent.plugin.ha;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.ConnectedAgents;
import io.spinagent.plugin.accounts.StreamsElsewhere;
import io.spinagent.plugin.config.StartupPhases;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * This replica's part in a group of Clouddriver replicas sharing one database: its forwarding
 * endpoint, the account ownership and connected agents it records, and the forwarder that reaches
 * the other owners. Off without a database or without {@code spinagent.ha.shared-secret}: then the
 * replica is alone. It starts ({@link StartupPhases#REPLICAS}) before the tunnel and the agent port
 * and stops after them: ownership is recorded with the endpoint's address from the first agent on,
 * and released after the last one left.
 */
public final class HighAvailability
    implements AccountLifecycleListener, StreamsElsewhere, SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(HighAvailability.class);

  /**
   * The owner answers 504 itself after the operations timeout; the forwarder waits a little longer.
   */
  private static final Duration FORWARDING_MARGIN = Duration.ofSeconds(5);

  private final HaProperties properties;
  private final MeterRegistry meters;
  private final String replicaId;
  private final boolean secretMissing;
  private final OwnershipKeeper keeper;
  private final OwnerForwarder forwarder;
  private final ReplicaCommands commands;
  private final AgentPresence presence;
  private volatile ForwardingEndpoint endpoint;
  private volatile boolean running;

  /** A replica alone: no database, or tests of one replica. */
  public static HighAvailability off() {
    return new HighAvailability(
        new HaProperties(),
        Optional.empty(),
        Optional.empty(),
        List::of,
        "",
        Duration.ZERO,
        Duration.ZERO,
        null,
        null);
  }

  /**
   * @param owners {@code spinagent_account_owners}, when Clouddriver has a database
   * @param agents {@code spinagent_connected_agents}, when Clouddriver has a database
   * @param connected the agents connected to this replica
   * @param operationsTimeout {@code spinagent.operations.timeout}: the owner answers a forwarded
   *     request's client itself after it
   * @param commandTimeout {@code spinagent.accounts.command-timeout}: the owner answers a forwarded
   *     account command after it
   */
  public HighAvailability(
      HaProperties properties,
      Optional<AccountOwnerTable> owners,
      Optional<ConnectedAgentTable> agents,
      ConnectedAgents connected,
      String replicaId,
      Duration operationsTimeout,
      Duration commandTimeout,
      MeterRegistry meters,
      Clock clock) {
    this.properties = properties;
    this.meters = meters;
    this.replicaId = replicaId;
    this.secretMissing = owners.isPresent() && properties.getSharedSecret().isBlank();
    boolean on = owners.isPresent() && !secretMissing;
    this.keeper =
        on
            ? new OwnershipKeeper(
                owners.get(), replicaId, this::endpointUrl, properties, meters, clock)
            : null;
    this.forwarder =
        on
            ? new OwnerForwarder(properties, operationsTimeout.plus(FORWARDING_MARGIN), meters)
            : null;
    this.commands =
        on ? new ReplicaCommands(properties, commandTimeout.plus(FORWARDING_MARGIN), meters) : null;
    this.presence =
        on && agents.isPresent()
            ? new AgentPresence(
                agents.get(), connected, replicaId, this::endpointUrl, properties, clock)
            : null;
  }

  /** The ownership records; empty when HA is off. */
  public Optional<OwnershipKeeper> keeper() {
    return Optional.ofNullable(keeper);
  }

  public Optional<OwnerForwarder> forwarder() {
    return Optional.ofNullable(forwarder);
  }

  /** The client that sends account commands to their owner; empty when HA is off. */
  public Optional<ReplicaCommands> commands() {
    return Optional.ofNullable(commands);
  }

  /** The running forwarding endpoint; empty when HA is off or stopped. */
  public Optional<ForwardingEndpoint> endpoint() {
    return Optional.ofNullable(endpoint);
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
    if (keeper != null) {
      keeper.onStateChange(account, previous);
    }
  }

  /** The replica whose live agent stream serves {@code account}, when it is another one. */
  @Override
  public Optional<String> replicaServing(String account) {
    return liveOwnerElsewhere(account).map(AccountOwner::replicaId);
  }

  /** The owner of {@code account}, when it is another replica that renewed its claim in time. */
  public Optional<AccountOwner> liveOwnerElsewhere(String account) {
    return keeper == null ? Optional.empty() : keeper.liveOwnerElsewhere(account);
  }

  /**
   * The replica, other than this one, that holds a live stream of agent {@code agentId} (or, with a
   * null agent id, of an agent of zone {@code zoneId}): the one that would own {@code account},
   * were the agent to serve it. Found through the agents each replica records as connected, so also
   * for an agent that serves no account yet.
   */
  public Optional<AccountOwner> replicaOfAgentElsewhere(
      String account, String agentId, String zoneId) {
    if (presence == null) {
      return Optional.empty();
    }
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
    if (keeper != null && endpoint == null) {
      endpoint = ForwardingEndpoint.start(properties, meters);
      keeper.start();
      if (presence != null) {
        presence.start();
      }
    } else if (secretMissing) {
      log.warn(
          "spinagent.ha.shared-secret is not set: replica '{}' does not forward tunnel requests to"
              + " other replicas. Run one Clouddriver replica, or set the same secret on all of"
              + " them.",
          replicaId);
    }
    running = true;
  }

  @Override
  public synchronized void stop() {
    if (endpoint != null) {
      if (presence != null) {
        presence.stop();
      }
      keeper.stop();
      endpoint.close();
      endpoint = null;
    }
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return StartupPhases.REPLICAS;
  }
}
