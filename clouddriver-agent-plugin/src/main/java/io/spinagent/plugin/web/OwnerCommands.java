package io.spinagent.plugin.web;

import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountTable;
import io.spinagent.plugin.accounts.ConnectedAgents;
import io.spinagent.plugin.accounts.StoredAccount;
import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.ReplicaCommands;
import io.spinagent.plugin.ha.ReplicaGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the replica that must run an account command among replicas sharing a database: the owner
 * of the account for changes and deletes (for a switched-off account, which has none, the replica
 * its agents are connected to); for creating and migrating, when no agent of its agent id or zone
 * is connected here, the replica such an agent is connected to (recorded by each replica's
 * heartbeat), or the owner of an account such an agent serves. Sends it there with {@link
 * ReplicaCommands}.
 */
public final class OwnerCommands implements CommandRouting {

  private final ReplicaGroup replicas;
  private final ReplicaCommands client;
  private final ConnectedAgents connected;
  private final AccountTable table;

  public OwnerCommands(
      ReplicaGroup replicas,
      ReplicaCommands client,
      ConnectedAgents connected,
      AccountTable table) {
    this.replicas = replicas;
    this.client = client;
    this.connected = connected;
    this.table = table;
  }

  @Override
  public Optional<AccountOwner> ownerElsewhere(AccountCommand command) {
    if (command.kind() == AccountCommand.Kind.CHANGE
        || command.kind() == AccountCommand.Kind.DELETE) {
      Optional<AccountOwner> owner = replicas.liveOwnerElsewhere(command.name());
      if (owner.isPresent()) {
        return owner;
      }
      // A switched-off account has no owner; the replica its agents are connected to keeps it
      // switched off, so that replica switches it on again (or deletes it).
      return table.find(command.name()).flatMap(stored -> replicaOfAgents(command.name(), stored));
    }
    String agentId = command.agentId();
    String zoneId = command.zoneId();
    if ((agentId == null) == (zoneId == null)) {
      return Optional.empty(); // refused here, naming the problem
    }
    boolean here =
        connected.all().stream()
            .anyMatch(
                agent ->
                    agentId != null
                        ? agentId.equals(agent.agentId())
                        : zoneId.equals(agent.zoneId()));
    if (here) {
      return Optional.empty();
    }
    Optional<AccountOwner> agentsReplica =
        replicas.replicaOfAgentElsewhere(command.name(), agentId, zoneId);
    if (agentsReplica.isPresent()) {
      return agentsReplica;
    }
    // An agent that connected within the last heartbeat interval is not recorded yet; the owner of
    // an account it serves holds its stream too.
    for (StoredAccount account : table.all()) {
      boolean ofThatAgent =
          agentId != null
              ? agentId.equals(account.cachingAgent()) || account.standbyAgents().contains(agentId)
              : zoneId.equals(account.zoneId());
      if (ofThatAgent && account.state() != AccountState.REMOVED) {
        Optional<AccountOwner> owner = replicas.liveOwnerElsewhere(account.name());
        if (owner.isPresent()) {
          return owner;
        }
      }
    }
    return Optional.empty();
  }

  /** The replica, other than this one, that the account's recorded agents are connected to. */
  private Optional<AccountOwner> replicaOfAgents(String account, StoredAccount stored) {
    List<String> agents = new ArrayList<>(stored.standbyAgents());
    if (stored.cachingAgent() != null) {
      agents.add(0, stored.cachingAgent());
    }
    boolean here = connected.all().stream().anyMatch(agent -> agents.contains(agent.agentId()));
    if (here) {
      return Optional.empty();
    }
    return agents.stream()
        .map(agent -> replicas.replicaOfAgentElsewhere(account, agent, null))
        .flatMap(Optional::stream)
        .findFirst();
  }

  @Override
  public ReplicaCommands.Reply send(AccountOwner owner, byte[] command)
      throws InterruptedException {
    return client.send(owner, command);
  }
}
