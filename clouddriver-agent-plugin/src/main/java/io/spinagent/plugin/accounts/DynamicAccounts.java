package io.spinagent.plugin.accounts;

import static io.spinagent.plugin.accounts.AccountRequestException.conflict;
import static io.spinagent.plugin.accounts.AccountRequestException.invalid;
import static io.spinagent.plugin.accounts.AccountRequestException.notFound;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.AddAccount;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.RemoveAccount;
import io.spinagent.protocol.v1.UpdateAccount;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
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
 * the agents' reasons if all refused it. Agents keep dynamic accounts in memory: each time one
 * connects, it is sent the accounts meant for it again, and a dynamic account it still serves that
 * no stored account owns any more is refused and removed from it ({@link #refusal}).
 *
 * <p>Past 500 lines because create, update, switch, delete and migrate share one rule (stored
 * first, pushed, settled by the agents' answers, whenever they come) and its bookkeeping.
 */
public final class DynamicAccounts implements AgentWelcomeListener, OrphanSweep.Expired {

  private static final Logger log = LoggerFactory.getLogger(DynamicAccounts.class);

  /** Kubernetes-style names: they appear in URLs, kubeconfigs and cache keys. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9_.]{0,98}[a-z0-9])?");

  private final AccountRegistry registry;
  private final ConnectedAgents connected;
  private final AccountStore store;
  private final Optional<ClouddriverAccountDefinitions> clouddriver;
  private final DynamicAccountLimits limits;
  private final StreamsElsewhere streamsElsewhere;

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
  }

  /**
   * Creates an account served by the agent or zone it names.
   *
   * @return the account as stored, and whether its agents have still to answer
   */
  public Change create(DynamicAccountSpec spec) {
    store.requireDynamicAccounts();
    validate(spec);
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
    Answers answers;
    try {
      answers =
          push(
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
    validate(spec);
    StoredAccount existing = dynamicAccount(spec.name());
    refuseWhenServedElsewhere(spec.name(), "change");
    List<AgentLink> agents = servingAgents(spec);
    Answers answers =
        push(
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
      agentsOf(existing.definition()).stream()
          .filter(agent -> !agents.contains(agent))
          .forEach(agent -> removeFrom(agent, spec.name()));
    }
    return new Change(store.find(spec.name()).orElseThrow(), answers.awaited());
  }

  /** Switches an account on ({@code ACTIVE}) or off ({@code INACTIVE}). */
  public void setActive(String name, boolean active) {
    boolean known = registry.find(name).isPresent() || store.find(name).isPresent();
    if (!known) {
      throw notFound("no account named '" + name + "'");
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
    if (!dynamic && live.isPresent() && !live.get().agentIds().isEmpty()) {
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
      agentsOf(stored.get().definition()).forEach(agent -> removeFrom(agent, name));
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
        validate(spec);
        requireFreeName(name);
        List<AgentLink> agents = servingAgents(spec);
        requireRoom(spec);
        if (!store.insertDynamic(spec, AccountSource.MIGRATED)) {
          throw conflict("account '" + name + "' already exists");
        }
        Answers answers;
        try {
          answers =
              push(
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
    removeFrom(agent, account.getName());
    return Optional.of(reason);
  }

  /**
   * Sends {@code command} to every agent and waits up to {@link DynamicAccountLimits#answerWait()}
   * for their answers. Refused by every agent that answered, with none left to answer, it fails
   * with their reasons; otherwise the caller learns whether some answers are still awaited.
   */
  private Answers push(List<AgentLink> agents, String name, Command.Builder command) {
    List<CompletableFuture<CommandResult>> results =
        agents.stream().map(agent -> agent.command(command.clone())).toList();
    long deadline = System.nanoTime() + limits.answerWait().toNanos();
    Tally now = new Tally();
    List<CompletableFuture<Void>> awaited = new ArrayList<>();
    Tally later = new Tally();
    for (int i = 0; i < agents.size(); i++) {
      String agent = agents.get(i).agentId();
      CompletableFuture<CommandResult> result = results.get(i);
      try {
        now.add(agent, result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException notYet) {
        awaited.add(result.handle((late, error) -> later.add(agent, late, error)));
      } catch (ExecutionException e) {
        now.add(agent, null, e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AccountRequestException(
            AccountRequestException.Problem.UNAVAILABLE, "interrupted");
      }
    }
    if (now.accepted() == 0 && awaited.isEmpty()) {
      throw invalid("account '" + name + "' was refused: " + String.join("; ", now.refusals()));
    }
    if (!now.refusals().isEmpty()) {
      log.warn("Account '{}': some agents refused it: {}", name, now.refusals());
    }
    CompletableFuture<Tally> all =
        CompletableFuture.allOf(awaited.toArray(CompletableFuture[]::new))
            .thenApply(done -> later.plus(now));
    boolean accepted = now.accepted() > 0;
    if (accepted && !awaited.isEmpty()) {
      CompletableFuture<?> unused =
          all.thenRun(
              () -> {
                if (!later.refusals().isEmpty()) {
                  log.warn("Account '{}': some agents refused it: {}", name, later.refusals());
                }
              });
    }
    return new Answers(!accepted, all);
  }

  /**
   * The agents of a new account had not answered when the request returned: when they do, an
   * account none of them took is removed, with their reasons, so that the stored account says what
   * the agents did.
   */
  private void settleWhenAnswered(String name, Answers answers) {
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
          .ifPresent(definition -> agentsOf(definition).forEach(agent -> removeFrom(agent, name)));
    }
  }

  private void removeFrom(AgentLink agent, String name) {
    // The callback logs a failed command and only logs: nothing is lost with the future.
    CompletableFuture<?> unused =
        agent
            .command(
                Command.newBuilder().setRemoveAccount(RemoveAccount.newBuilder().setName(name)))
            .whenComplete(
                (result, error) -> {
                  if (error != null || !result.getOk()) {
                    log.warn(
                        "Agent '{}' did not remove account '{}': {}",
                        agent.agentId(),
                        name,
                        error != null ? error.getMessage() : result.getError());
                  }
                });
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
    List<AgentLink> agents = agentsOf(spec);
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

  private List<AgentLink> agentsOf(DynamicAccountSpec spec) {
    return connected.all().stream()
        .filter(agent -> spec.servedBy(agent.agentId(), agent.zoneId()))
        .map(AgentLink.class::cast)
        .toList();
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

  private static void validate(DynamicAccountSpec spec) {
    if (spec.name() == null || spec.name().isBlank()) {
      throw invalid("name: required");
    }
    if (!NAME.matcher(spec.name()).matches()) {
      throw invalid(
          "name: '"
              + spec.name()
              + "' is not a valid account name (lower-case letters, digits, '-', '_',"
              + " '.', starting and ending with a letter or digit, at most 100 characters)");
    }
    if ((spec.agentId() == null) == (spec.zoneId() == null)) {
      throw invalid(
          "agentId, zoneId: give exactly one: the agent, or the zone of agents, that serves the"
              + " account");
    }
    int sources =
        (spec.kubeconfigContents() != null ? 1 : 0)
            + (spec.kubeconfigFile() != null ? 1 : 0)
            + (Boolean.TRUE.equals(spec.serviceAccount()) ? 1 : 0);
    if (sources != 1) {
      throw invalid(
          "kubeconfigContents, kubeconfigFile, serviceAccount: give exactly one way for the agent"
              + " to reach the cluster");
    }
    if (spec.kubeconfigFile() != null) {
      kubeconfigFileProblem(spec.kubeconfigFile())
          .ifPresent(
              problem -> {
                throw invalid("kubeconfigFile: " + problem);
              });
    }
    if (spec.kubeconfigContents() != null) {
      KubeconfigCheck.problem(spec.kubeconfigContents(), spec.context())
          .ifPresent(
              problem -> {
                throw invalid(problem);
              });
    }
    spec.customResourcesProblem()
        .ifPresent(
            problem -> {
              throw invalid(problem);
            });
  }

  /**
   * Why the agent cannot read a kubeconfig at {@code file}: the agent reads a file on its own
   * machine, by absolute path (a command has no directory a relative one could be resolved
   * against), and resolves no secret references (Armory's agent resolved them through its secret
   * engines).
   */
  private static Optional<String> kubeconfigFileProblem(String file) {
    if (KubeconfigCheck.isSecretReference(file)) {
      return Optional.of(
          "'"
              + file
              + "' is a secret reference, which SpinAgent's agent does not resolve: mount the"
              + " secret into the agent's pod and give the kubeconfig's path there, e.g."
              + " /opt/spinagent/kubeconfigs/config");
    }
    if (!file.startsWith("/")) {
      return Optional.of(
          "'"
              + file
              + "' is not an absolute path; give the kubeconfig's full path on the agent's"
              + " machine, e.g. /opt/spinagent/kubeconfigs/config");
    }
    return Optional.empty();
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

  /**
   * The agents' answers to a command.
   *
   * @param awaited none accepted within the wait, and some have still to answer
   * @param late all answers, once every agent answered (or disconnected)
   */
  private record Answers(boolean awaited, CompletableFuture<Tally> late) {}

  /** Agents that accepted a command, and the reasons of those that did not. */
  private static final class Tally {
    private int accepted;
    private final List<String> refusals = new ArrayList<>();

    synchronized Void add(String agent, CommandResult result, Throwable error) {
      if (error != null) {
        refusals.add("agent '" + agent + "': " + describe(error));
      } else if (result.getOk()) {
        accepted++;
      } else {
        refusals.add("agent '" + agent + "': " + result.getError());
      }
      return null;
    }

    void add(String agent, CommandResult result) {
      add(agent, result, null);
    }

    synchronized int accepted() {
      return accepted;
    }

    synchronized List<String> refusals() {
      return List.copyOf(refusals);
    }

    synchronized Tally plus(Tally other) {
      Tally sum = new Tally();
      sum.accepted = accepted + other.accepted();
      sum.refusals.addAll(refusals);
      sum.refusals.addAll(other.refusals());
      return sum;
    }

    private static String describe(Throwable error) {
      Throwable cause =
          error instanceof CompletionException && error.getCause() != null
              ? error.getCause()
              : error;
      return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }
  }
}
