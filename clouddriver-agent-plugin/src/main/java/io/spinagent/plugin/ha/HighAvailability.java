package io.spinagent.plugin.ha;

import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * This replica's part in a group of Clouddriver replicas sharing one database: its forwarding
 * endpoint, the account ownership it records, and the forwarder that reaches the other owners. Off
 * without a database or without {@code spinagent.ha.shared-secret}: then the replica is alone, as
 * before HA existed.
 */
public final class HighAvailability implements AccountLifecycleListener, SmartLifecycle {

  private final HaProperties properties;
  private final MeterRegistry meters;
  private final OwnershipKeeper keeper;
  private final OwnerForwarder forwarder;
  private volatile ForwardingEndpoint endpoint;

  private HighAvailability() {
    this.properties = null;
    this.meters = null;
    this.keeper = null;
    this.forwarder = null;
  }

  private HighAvailability(
      HaProperties properties,
      AccountOwnerTable owners,
      String replicaId,
      Duration forwardHeadTimeout,
      MeterRegistry meters,
      Clock clock) {
    this.properties = properties;
    this.meters = meters;
    this.keeper =
        new OwnershipKeeper(owners, replicaId, this::endpointUrl, properties, meters, clock);
    this.forwarder = new OwnerForwarder(properties, forwardHeadTimeout, meters);
  }

  public static HighAvailability off() {
    return new HighAvailability();
  }

  /**
   * @param forwardHeadTimeout how long a forwarded request waits for the owner's response head
   */
  public static HighAvailability on(
      HaProperties properties,
      AccountOwnerTable owners,
      String replicaId,
      Duration forwardHeadTimeout,
      MeterRegistry meters,
      Clock clock) {
    return new HighAvailability(properties, owners, replicaId, forwardHeadTimeout, meters, clock);
  }

  /** The ownership records; empty when HA is off. */
  public Optional<OwnershipKeeper> keeper() {
    return Optional.ofNullable(keeper);
  }

  public Optional<OwnerForwarder> forwarder() {
    return Optional.ofNullable(forwarder);
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

  @Override
  public synchronized void start() {
    if (keeper != null && endpoint == null) {
      endpoint = ForwardingEndpoint.start(properties, meters);
      keeper.start();
    }
  }

  @Override
  public synchronized void stop() {
    if (endpoint != null) {
      keeper.stop();
      endpoint.close();
      endpoint = null;
    }
  }

  @Override
  public boolean isRunning() {
    return endpoint != null;
  }

  /**
   * Starts before the agent port and the tunnel, and stops after them: ownership is recorded with
   * the endpoint's address from the first agent on, and released after the last one left.
   */
  @Override
  public int getPhase() {
    return DEFAULT_PHASE - 1000;
  }
}
