package io.spinagent.plugin.accounts;

import static io.spinagent.plugin.accounts.AccountRequestException.conflict;
import static io.spinagent.plugin.accounts.AccountRequestException.invalid;
import static io.spinagent.plugin.accounts.AccountRequestException.notFound;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.spinagent.protocol.v1.AddAccount;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.UpdateAccount;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accounts operators create, change, switch off, delete and migrate through the REST API, and the
 * agents that serve them.
 *
 * <p>A new account is stored first, then pushed to its agents: refused by all of them, it is
 * removed again, so a refused request leaves nothing behind. When the agents have not answered
 * within {@link DynamicAccountLimits#answerWait()}, the request says so (the API answers 202) and
 * the answer, whenever it comes, settles the stored account: kept if an agent took it, removed with
 * the agents' reasons if all refused it. Agents keep dynamic accounts in memory; {@link
 * DynamicAccountReconciler} sends them again as agents connect and withdraws those gone.
 */
public final class DynamicAccounts {

  private static final Logger log = LoggerFactory.getLogger(DynamicAccounts.class);

  private final AccountRegistry registry;
  private final ConnectedAgents connected;
  private final AccountStore store;
  private final Optional<ClouddriverAccountDefinitions> clouddriver;
  private final DynamicAccountLimits limits;
  private final StreamsElsewhere streamsElsewhere;
  private final AgentCommandPush agentPush;

  public DynamicAccounts(
      AccountRegistry registry,
      ConnectedAgents connected,
      AccountStore store,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      DynamicAccountLimits limits,
      StreamsElsewhere streamsElsewhere) {
    this.registry = registry;
    this.connected = connected;
    this.store = store;
    this.clouddriver = clouddriver;
    this.limits = limits;
    this.streamsElsewhere = streamsElsewhere;
    this.agentPush = new AgentCommandPush(limits.answerWait());
  }

  /**
   * Creates an account served by the agent or zone it names.
   *
   * @return the account as stored, and whether its agents have still to answer
   */
  public Change create(DynamicAccountSpec spec) {
    store.requireDynamicAccounts();
    DynamicAccountChecks.validate(spec);
    requireFreeName(spec.name());
    if (clouddriver.flatMap(c -> c.find(spec.name())).isPresent()) {
      throw conflict(
          "Clouddriver already has an account named '"
              + spec.name()
              + "': put it under SpinAgent with"
              + " POST /spinagent/accounts/migrate, or choose another name");
    }
    List<AgentLink> agents = servingAgents(spec);
    requireRoom(spec);
    if (!store.insertDynamic(spec, AccountSource.API)) {
      throw conflict("account '" + spec.name() + "' already exists");
    }
    AgentCommandPush.Answers answers;
    try {
      answers =
          agentPush.push(
              agents,
              spec.name(),
              Command.newBuilder()
                  .setAddAccount(AddAccount.newBuilder().setAccount(spec.toProto())));
    } catch (RuntimeException e) {
      store.delete(spec.name());
      throw e;
    }
    if (answers.awaited()) {
      settleWhenAnswered(spec.name(), answers);
    }
    log.info(
        "Account '{}' created through the API, served by {}{}",
        spec.name(),
        describeTarget(spec),
        answers.awaited() ? " (its agents have not answered yet)" : "");
    return new Change(store.find(spec.name()).orElseThrow(), answers.awaited());
  }

  /**
   * Replaces the definition of an account created through the API or migrated.
   *
   * @return the account as stored, and whether its agents have still to answer
   */
  public Change update(DynamicAccountSpec spec) {
    store.requireDynamicAccounts();
    DynamicAccountChecks.validate(spec);
    StoredAccount existing = dynamicAccount(spec.name());
    refuseWhenServedElsewhere(spec.name(), "change");
    List<AgentLink> agents = servingAgents(spec);
    AgentCommandPush.Answers answers =
        agentPush.push(
            agents,
            spec.name(),
            Command.newBuilder()
                .setUpdateAccount(UpdateAccount.newBuilder().setAccount(spec.toProto())));
    store.updateDynamic(spec);
    if (answers.awaited()) {
      // Stored as asked: it is what the agents are sent again when they reconnect.
      // late never fails (push turns an agent's failure into a refusal), and the callback catches
      // and logs what recording the refusal throws: nothing is lost with the future.
      CompletableFuture<?> unused =
          answers
              .late()
              .whenComplete(
                  (late, error) -> {
                    if (late != null && late.accepted() == 0) {
                      try {
                        store.recordFailure(
                            spec.name(),
                            "the change was refused: " + String.join("; ", late.refusals()));
                      } catch (RuntimeException e) {
                        log.error(
                            "Account '{}': cannot record that its agents refused the change in"
                                + " spinagent_accounts",
                            spec.name(),
                            e);
                      }
                    }
                  });
    }
    if (existing.definition() != null && !existing.definition().servedByTheSameAgentsAs(spec)) {
      connected.serving(existing.definition()).stream()
          .filter(agent -> !agents.contains(agent))
          .forEach(agent -> AgentCommandPush.removeFrom(agent, spec.name()));
    }
    return new Change(store.find(spec.name()).orElseThrow(), answers.awaited());
  }

  /** Switches an account on ({@code ACTIVE}) or off ({@code INACTIVE}). */
  public void setActive(String name, boolean active) {
    Optional<StoredAccount> stored = store.find(name);
    boolean deleted =
        stored.filter(s -> s.definition() != null && s.state() == AccountState.REMOVED).isPresent();
    boolean known = registry.find(name).isPresent() || (stored.isPresent() && !deleted);
    if (!known) {
      throw notFound(
          deleted
              ? "account '" + name + "' was deleted; create it again to use it"
              : "no account named '" + name + "'");
    }
    refuseWhenServedElsewhere(name, active ? "switch on" : "switch off");
    store.setInactive(name, !active);
    if (active) {
      registry.activate(name);
    } else {
      registry.deactivate(name);
    }
  }

  /**
   * Deletes an account: its agents stop serving it (API and migrated accounts), its Clouddriver
   * definition and cache rows go. An account an agent's configuration lists is refused while the
   * agent serves it: it would be back at the agent's next connection.
   */
  public void delete(String name) {
    Optional<StoredAccount> stored = store.find(name);
    Optional<AgentAccount> live = registry.find(name);
    if (stored.isEmpty() && live.isEmpty()) {
      throw notFound("no account named '" + name + "'");
    }
    refuseWhenServedElsewhere(name, "delete");
    boolean dynamic = stored.map(s -> s.definition() != null).orElse(false);
    if (!dynamic && live.isPresent() && live.get().servedHere()) {
      throw conflict(
          "account '"
              + name
              + "' is in the configuration of agent(s) "
              + live.get().agentIds()
              + ": remove it there, or switch it off with PUT /spinagent/accounts/"
              + name
              + " {\"state\": \"INACTIVE\"}");
    }
    if (dynamic) {
      connected
          .serving(stored.get().definition())
          .forEach(agent -> AgentCommandPush.removeFrom(agent, name));
    }
    if (!registry.delete(name, "account '" + name + "' was deleted through the SpinAgent API")) {
      // Not served here (never activated, or expired): no listener hears of it, so finish here.
      stored.ifPresent(
          row -> {
            if (row.clouddriverDefinition()) {
              clouddriver.ifPresent(definitions -> definitions.delete(name));
            }
            store.markRemoved(name);
          });
    }
    log.info("Account '{}' deleted through the API", name);
  }

  /**
   * Puts Clouddriver-managed Kubernetes accounts under agent management: each one's kubeconfig goes
   * to the agent (or zone), and once the agent serves the account its Clouddriver definition is
   * replaced by the tunnel one. An account whose agent refuses it keeps its original definition.
   */
  public List<MigrationResult> migrate(List<String> names, String agentId, String zoneId) {
    return migrate(names, agentId, zoneId, null);
  }

  /**
   * As {@link #migrate(List, String, String)}, but the agent reaches each cluster through the
   * kubeconfig at {@code kubeconfigFile} on its own machine instead of the one in Clouddriver's
   * definition (Armory's {@code kubeconfigFile} in a migration, for when Clouddriver's kubeconfig
   * does not work from where the agent runs); null keeps the definition's.
   */
  public List<MigrationResult> migrate(
      List<String> names, String agentId, String zoneId, String kubeconfigFile) {
    store.requireDynamicAccounts();
    ClouddriverAccountDefinitions definitions =
        clouddriver.orElseThrow(
            () ->
                new AccountRequestException(
                    AccountRequestException.Problem.UNAVAILABLE,
                    "migration needs Clouddriver's account storage (account.storage.enabled:"
                        + " true)"));
    if (names == null || names.isEmpty()) {
      throw invalid("accounts: list the names of the Clouddriver accounts to migrate");
    }
    List<MigrationResult> results = new ArrayList<>();
    for (String name : names) {
      try {
        DynamicAccountSpec spec = definitions.migrationSpec(name, agentId, zoneId);
        if (kubeconfigFile != null) {
          spec = spec.withKubeconfigFile(kubeconfigFile);
        }
        DynamicAccountChecks.validate(spec);
        requireFreeName(name);
        List<AgentLink> agents = servingAgents(spec);
        requireRoom(spec);
        if (!store.insertDynamic(spec, AccountSource.MIGRATED)) {
          throw conflict("account '" + name + "' already exists");
        }
        AgentCommandPush.Answers answers;
        try {
          answers =
              agentPush.push(
                  agents,
                  name,
                  Command.newBuilder()
                      .setAddAccount(AddAccount.newBuilder().setAccount(spec.toProto())));
        } catch (RuntimeException e) {
          store.delete(name);
          throw e;
        }
        if (answers.awaited()) {
          settleWhenAnswered(name, answers);
        }
        // The bridge replaces the definition once the agent serves the account (source MIGRATED).
        results.add(MigrationResult.migrated(name, answers.awaited()));
        log.info("Clouddriver account '{}' migrated to {}", name, describeTarget(spec));
      } catch (AccountRequestException e) {
        results.add(MigrationResult.failed(name, e.getMessage()));
        log.warn(
            "Migrating Clouddriver account '{}' failed, its definition is untouched: {}",
            name,
            e.getMessage());
      }
    }
    return results;
  }

  /**
   * The agents of a new account had not answered when the request returned: when they do, an
   * account none of them took is removed, with their reasons, so that the stored account says what
   * the agents did.
   */
  private void settleWhenAnswered(String name, AgentCommandPush.Answers answers) {
    // late never fails (push turns an agent's failure into a refusal), and the callback catches
    // and logs what recording the refusal throws: nothing is lost with the future.
    CompletableFuture<?> unused =
        answers
            .late()
            .whenComplete(
                (late, error) -> {
                  if (late == null || late.accepted() > 0) {
                    return;
                  }
                  String reason = "refused by its agents: " + String.join("; ", late.refusals());
                  log.warn(
                      "Account '{}' created through the API was {}; removing it", name, reason);
                  try {
                    store.recordFailure(name, reason);
                    store.markRemoved(name);
                  } catch (RuntimeException e) {
                    log.error(
                        "Account '{}': cannot record that its agents refused it in"
                            + " spinagent_accounts",
                        name,
                        e);
                  }
                });
  }

  private void requireRoom(DynamicAccountSpec spec) {
    if (spec.agentId() != null && store.countDynamic(spec.agentId(), null) >= limits.perAgent()) {
      throw new AccountRequestException(
          AccountRequestException.Problem.TOO_MANY,
          "agentId: agent '"
              + spec.agentId()
              + "' already serves "
              + limits.perAgent()
              + " dynamic accounts, the limit (spinagent.accounts.max-dynamic-per-agent); delete"
              + " some, or serve more through another agent");
    }
    if (spec.zoneId() != null && store.countDynamic(null, spec.zoneId()) >= limits.perZone()) {
      throw new AccountRequestException(
          AccountRequestException.Problem.TOO_MANY,
          "zoneId: zone '"
              + spec.zoneId()
              + "' already serves "
              + limits.perZone()
              + " dynamic accounts, the limit (spinagent.accounts.max-dynamic-per-zone)");
    }
  }

  /**
   * Refuses a command for an account whose agent stream another replica holds: run here, it would
   * change the stored account and leave the agent serving it as it was.
   */
  private void refuseWhenServedElsewhere(String name, String change) {
    Optional<String> replica;
    try {
      replica = streamsElsewhere.replicaServing(name);
    } catch (RuntimeException e) {
      throw new AccountRequestException(
          AccountRequestException.Problem.UNAVAILABLE,
          "cannot look up which Clouddriver replica serves account '"
              + name
              + "' (database: "
              + e.getMessage()
              + ")");
    }
    if (replica.isPresent()) {
      throw new AccountRequestException(
          AccountRequestException.Problem.SERVED_ELSEWHERE,
          "account '"
              + name
              + "' is served by Clouddriver replica '"
              + replica.get()
              + "', which holds"
              + " its agent's stream: send the request to that replica to "
              + change
              + " the account (this one cannot"
              + " reach the agent)");
    }
  }

  private List<AgentLink> servingAgents(DynamicAccountSpec spec) {
    List<AgentLink> agents = connected.serving(spec);
    if (agents.isEmpty()) {
      String elsewhere =
          "; with several Clouddriver replicas, send the request to the one it is connected to"
              + " (GET /spinagent/agents on each lists its agents)";
      throw notFound(
          spec.agentId() != null
              ? "agentId: no agent '"
                  + spec.agentId()
                  + "' is connected to this Clouddriver replica"
                  + elsewhere
              : "zoneId: no agent of zone '"
                  + spec.zoneId()
                  + "' is connected to this Clouddriver replica"
                  + elsewhere);
    }
    return agents;
  }

  private void requireFreeName(String name) {
    if (registry.find(name).filter(a -> a.state() != AccountState.REMOVED).isPresent()) {
      throw conflict(
          "account '" + name + "' already exists: an agent serves it from its configuration");
    }
    Optional<StoredAccount> stored = store.find(name);
    if (stored.isPresent() && stored.get().state() != AccountState.REMOVED) {
      throw conflict(
          "account '"
              + name
              + "' already exists ("
              + stored.get().source()
              + ", "
              + stored.get().state()
              + ")");
    }
    stored.ifPresent(removed -> store.delete(name));
  }

  private StoredAccount dynamicAccount(String name) {
    StoredAccount stored =
        store.find(name).orElseThrow(() -> notFound("no account named '" + name + "'"));
    if (stored.definition() == null) {
      throw conflict("account '" + name + "' comes from an agent's configuration: change it there");
    }
    return stored;
  }

  private static String describeTarget(DynamicAccountSpec spec) {
    return spec.agentId() != null
        ? "agent '" + spec.agentId() + "'"
        : "zone '" + spec.zoneId() + "'";
  }

  /**
   * An account as stored after a create or update request.
   *
   * @param awaitingAgents its agents had not answered when the request stopped waiting: the
   *     account's state says the outcome when they do
   */
  public record Change(StoredAccount account, boolean awaitingAgents) {}

  /**
   * The outcome of migrating one account.
   *
   * @param awaitingAgents migrated, but its agents had not answered yet (null when they had)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record MigrationResult(
      String name, boolean migrated, String error, Boolean awaitingAgents) {
    static MigrationResult migrated(String name, boolean awaitingAgents) {
      return new MigrationResult(name, true, null, awaitingAgents ? Boolean.TRUE : null);
    }

    static MigrationResult failed(String name, String error) {
      return new MigrationResult(name, false, error, null);
    }
  }
}
