package io.spinagent.plugin.ha;

import io.spinagent.plugin.accounts.ConnectedAgents;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records which agents are connected to this replica in {@code spinagent_connected_agents}, every
 * heartbeat interval from the moment the replica starts (thread {@code spinagent-agent-presence}),
 * and finds the replica another agent is connected to. It is what lets a replica forward a command
 * for an agent that serves no account yet (account ownership only names agents through their
 * accounts). An agent is visible to the other replicas within one heartbeat interval of its
 * connection; its row goes at the first heartbeat after it left, or with the replica's heartbeat
 * when the replica dies.
 */
public final class AgentPresence {

  private static final Logger log = LoggerFactory.getLogger(AgentPresence.class);

  private final ConnectedAgentTable table;
  private final ConnectedAgents connected;
  private final String replicaId;
  private final Supplier<String> forwardUrl;
  private final HaProperties properties;
  private final Clock clock;
  private final HeartbeatThread thread = new HeartbeatThread("spinagent-agent-presence");
  private volatile boolean failing;

  public AgentPresence(
      ConnectedAgentTable table,
      ConnectedAgents connected,
      String replicaId,
      Supplier<String> forwardUrl,
      HaProperties properties,
      Clock clock) {
    this.table = table;
    this.connected = connected;
    this.replicaId = replicaId;
    this.forwardUrl = forwardUrl;
    this.properties = properties;
    this.clock = clock;
  }

  /**
   * The replica, other than this one, that agent {@code agentId} (or, with a null agent id, an
   * agent of zone {@code zoneId}) is connected to, as recorded by a heartbeat within the owner
   * timeout.
   */
  public Optional<ConnectedAgentTable.Row> replicaElsewhere(String agentId, String zoneId) {
    return table.findElsewhere(
        agentId, zoneId, replicaId, clock.instant().minus(properties.getOwnerTimeout()));
  }

  public void start() {
    thread.start(this::record, Duration.ZERO, properties.getHeartbeatInterval());
  }

  /** Removes this replica's rows, so the others stop forwarding to it at once. */
  public void stop() {
    try {
      if (thread.stop()) {
        table.releaseAll(replicaId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.warn(
          "Replica '{}' could not remove its agents from spinagent_connected_agents while"
              + " stopping; other replicas ignore them after spinagent.ha.owner-timeout ({}): {}",
          replicaId,
          properties.getOwnerTimeout(),
          e.toString());
    }
  }

  private void record() {
    try {
      List<ConnectedAgentTable.Connected> agents =
          connected.all().stream()
              .map(
                  agent ->
                      new ConnectedAgentTable.Connected(
                          agent.agentId(), agent.zoneId().isEmpty() ? null : agent.zoneId()))
              .distinct()
              .toList();
      table.record(replicaId, forwardUrl.get(), agents, clock.instant());
      if (failing) {
        failing = false;
        log.info("Replica '{}' records its connected agents again", replicaId);
      }
    } catch (RuntimeException e) {
      if (!failing) {
        failing = true;
        log.warn(
            "Replica '{}' could not record its connected agents in spinagent_connected_agents"
                + " (retried every {}); other replicas cannot forward commands for its agents"
                + " that serve no account yet: {}",
            replicaId,
            properties.getHeartbeatInterval(),
            e.toString());
      }
    }
  }
}
