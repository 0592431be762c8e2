package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.AddAccount;
import io.spinagent.protocol.v1.Command;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps agents' dynamic accounts in step with the stored ones as agents come and go. Agents keep
 * dynamic accounts in memory: each time one connects it is sent the accounts meant for it again; a
 * dynamic account it claims that no stored account owns any more is refused and removed from it;
 * and after each orphan sweep, the accounts the sweep removed, or another replica deleted while
 * their agent moved here, are withdrawn from the agents that still hold them.
 */
public final class DynamicAccountReconciler implements AgentWelcomeListener, OrphanSweep.Listener {

  // Dynamic accounts log under one name, whichever part of them acts.
  private static final Logger log = LoggerFactory.getLogger(DynamicAccounts.class);

  private final AccountRegistry registry;
  private final ConnectedAgents connected;
  private final AccountStore store;

  public DynamicAccountReconciler(
      AccountRegistry registry, ConnectedAgents connected, AccountStore store) {
    this.registry = registry;
    this.connected = connected;
    this.store = store;
  }

  /** An agent connected: send it the dynamic accounts meant for it (it forgets them on restart). */
  @Override
  public void welcomed(AgentLink agent) {
    List<StoredAccount> mine;
    try {
      mine =
          store.dynamicAccounts().stream()
              .filter(a -> a.state() != AccountState.REMOVED)
              .filter(a -> a.definition().servedBy(agent.agentId(), agent.zoneId()))
              .toList();
    } catch (RuntimeException e) {
      log.error(
          "Agent '{}': cannot read its dynamic accounts from spinagent_accounts; they are sent when"
              + " it reconnects",
          agent.agentId(),
          e);
      return;
    }
    for (StoredAccount account : mine) {
      // The callback logs a refusal or failure and catches what recording it throws: nothing is
      // lost with the future.
      CompletableFuture<?> unused =
          agent
              .command(
                  Command.newBuilder()
                      .setAddAccount(
                          AddAccount.newBuilder().setAccount(account.definition().toProto())))
              .whenComplete(
                  (result, error) -> {
                    String problem =
                        error != null
                            ? error.getMessage()
                            : result.getOk() ? null : result.getError();
                    if (problem != null) {
                      log.warn(
                          "Agent '{}' did not take dynamic account '{}': {}",
                          agent.agentId(),
                          account.name(),
                          problem);
                      try {
                        store.recordFailure(
                            account.name(), "agent '" + agent.agentId() + "': " + problem);
                      } catch (RuntimeException e) {
                        log.error(
                            "Agent '{}': cannot record in spinagent_accounts that it did not take"
                                + " dynamic account '{}'",
                            agent.agentId(),
                            account.name(),
                            e);
                      }
                    }
                  });
    }
  }

  /**
   * Why a dynamic account an agent claims must be refused: it no longer exists here (deleted
   * through the API while the agent did not answer or was away) or is no longer meant for this
   * agent. The agent is also told to remove it, so it stops serving it for good.
   */
  @Override
  public Optional<String> refusal(AgentLink agent, AccountInfo account) {
    if (!account.getDynamic()) {
      return Optional.empty();
    }
    Optional<StoredAccount> stored;
    try {
      stored = store.find(account.getName());
    } catch (RuntimeException e) {
      log.warn(
          "Agent '{}': cannot read dynamic account '{}' from spinagent_accounts; letting the claim"
              + " through: {}",
          agent.agentId(),
          account.getName(),
          e.toString());
      return Optional.empty();
    }
    boolean owned =
        stored
            .filter(s -> s.definition() != null && s.state() != AccountState.REMOVED)
            .filter(s -> s.definition().servedBy(agent.agentId(), agent.zoneId()))
            .isPresent();
    if (owned) {
      return Optional.empty();
    }
    String reason =
        "dynamic account '"
            + account.getName()
            + "' is not stored in Clouddriver for agent '"
            + agent.agentId()
            + "' (deleted through the API, or meant for another agent): the agent is told to"
            + " remove it";
    log.warn(
        "Refused account '{}' from agent '{}': {}", account.getName(), agent.agentId(), reason);
    AgentCommandPush.removeFrom(agent, account.getName());
    return Optional.of(reason);
  }

  /**
   * Accounts the grace period removed: a dynamic one is withdrawn from the connected agents it was
   * meant for (say, one that could not reach its cluster, so never served it), so that none keeps
   * reaching for a cluster nobody serves.
   */
  @Override
  public void removed(List<String> accounts) {
    for (String name : accounts) {
      store
          .find(name)
          .map(StoredAccount::definition)
          .ifPresent(
              definition ->
                  connected
                      .serving(definition)
                      .forEach(agent -> AgentCommandPush.removeFrom(agent, name)));
    }
  }

  /**
   * Settles the dynamic accounts another replica deleted meanwhile. One a session here serves (its
   * agent moved here while the delete ran there, too late for the delete to be sent here and too
   * early for the claim here to see it) is deleted here and withdrawn from its agents. One orphaned
   * here whose row is gone (deleted there after its agent left, or a create there whose push
   * failed), as is an account restored at start-up whose row is gone, is deleted here, not kept
   * ORPHANED until the grace period ends; so is one switched off here after its agent left (the
   * switch ran here as the delete ran there). Run after every orphan sweep.
   */
  @Override
  public void swept() {
    List<AgentAccount> settled =
        registry.all().stream().filter(DynamicAccountReconciler::settledByItsRow).toList();
    if (settled.isEmpty()) {
      return;
    }
    Map<String, StoredAccount> rows = store.find(settled.stream().map(AgentAccount::name).toList());
    for (AgentAccount account : settled) {
      StoredAccount row = rows.get(account.name());
      if (account.servedHere()) {
        if (row != null && row.definition() != null && row.state() == AccountState.REMOVED) {
          deleteServed(account, row);
        }
      } else if (row == null || row.state() == AccountState.REMOVED) {
        deleteOrphan(account);
      }
    }
  }

  /**
   * Whether the account's row tells that it was deleted elsewhere: a dynamic account's row is
   * written before any agent hears of it, and an account restored at start-up (never claimed since,
   * so nothing reported) came from its row, so for both no row means deleted. The row of an account
   * an agent's configuration brought here is written after the claim, so it tells nothing yet.
   */
  private static boolean settledByItsRow(AgentAccount account) {
    if (account.servedHere()) {
      return account.reported() != null && account.reported().getDynamic();
    }
    return (account.state() == AccountState.ORPHANED || account.state() == AccountState.INACTIVE)
        && (account.reported() == null || account.reported().getDynamic());
  }

  private void deleteServed(AgentAccount account, StoredAccount row) {
    String reason =
        "account '" + account.name() + "' was deleted through another Clouddriver replica";
    if (registry.deletedElsewhere(account.name(), account.stateSince(), reason)) {
      log.warn(
          "Account '{}' was deleted through another Clouddriver replica while agent(s) {} moved"
              + " here; deleted here too",
          account.name(),
          account.agentIds());
      connected
          .serving(row.definition())
          .forEach(agent -> AgentCommandPush.removeFrom(agent, account.name()));
    }
  }

  private void deleteOrphan(AgentAccount account) {
    String reason = "account '" + account.name() + "' no longer exists";
    if (registry.deletedElsewhere(account.name(), account.stateSince(), reason)) {
      log.info(
          "Account '{}' was orphaned here and has no stored account any more (deleted or removed"
              + " through another Clouddriver replica); forgotten here",
          account.name());
    }
  }
}
