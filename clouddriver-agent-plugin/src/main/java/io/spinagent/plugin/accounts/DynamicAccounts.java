package io.spinagent.plugin.accounts;

import static io.spinagent.plugin.accounts.AccountRequestException.conflict;
import static io.spinagent.plugin.accounts.AccountRequestException.invalid;
import static io.spinagent.plugin.accounts.AccountRequestException.notFound;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.spinagent.protocol.v1.AddAccount;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.RemoveAccount;
import io.spinagent.protocol.v1.UpdateAccount;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accounts operators create, change, switch off, delete and migrate through the REST API, and the
 * agents that serve them. A change is pushed to the account's agents first and stored only once one
 * of them accepted it, so a refused request leaves nothing behind. Agents keep dynamic accounts in
 * memory: each time one connects, it is sent the accounts meant for it again.
 */
public final class DynamicAccounts implements AgentWelcomeListener {

  private static final Logger log = LoggerFactory.getLogger(DynamicAccounts.class);

  /** Kubernetes-style names: they appear in URLs, kubeconfigs and cache keys. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9_.]{0,98}[a-z0-9])?");

  private final AccountRegistry registry;
  private final ConnectedAgents connected;
  private final Optional<AccountTable> table;
  private final Optional<ClouddriverAccountDefinitions> clouddriver;
  private final Duration commandTimeout;
  private final StreamsElsewhere streamsElsewhere;

  public DynamicAccounts(
      AccountRegistry registry,
      ConnectedAgents connected,
      Optional<AccountTable> table,
      Optional<ClouddriverAccountDefinitions> clouddriver,
      Duration commandTimeout,
      StreamsElsewhere streamsElsewhere) {
    this.registry = registry;
    this.connected = connected;
    this.table = table;
    this.clouddriver = clouddriver;
    this.commandTimeout = commandTimeout;
    this.streamsElsewhere = streamsElsewhere;
  }

  /** Creates an account served by the agent or zone it names; returns it as stored. */
  public StoredAccount create(DynamicAccountSpec spec) {
    AccountTable accounts = requireTable();
    validate(spec);
    requireFreeName(spec.name(), accounts);
    if (clouddriver.flatMap(c -> c.find(spec.name())).isPresent()) {
      throw conflict(
          "Clouddriver already has an account named '"
              + spec.name()
              + "': put it under SpinAgent with"
              + " POST /spinagent/accounts/migrate, or choose another name");
    }
    List<AgentLink> agents = servingAgents(spec);
    if (!accounts.insertDynamic(spec, AccountSource.API)) {
      throw conflict("account '" + spec.name() + "' already exists");
    }
    try {
      push(
          agents,
          spec.name(),
          Command.newBuilder().setAddAccount(AddAccount.newBuilder().setAccount(spec.toProto())));
    } catch (RuntimeException e) {
      accounts.delete(spec.name());
      throw e;
    }
    log.info(
        "Account '{}' created through the API, served by {}", spec.name(), describeTarget(spec));
    return accounts.find(spec.name()).orElseThrow();
  }

  /** Replaces the definition of an account created through the API or migrated. */
  public StoredAccount update(DynamicAccountSpec spec) {
    AccountTable accounts = requireTable();
    validate(spec);
    StoredAccount existing = dynamicAccount(spec.name(), accounts);
    refuseWhenServedElsewhere(spec.name(), "change");
    List<AgentLink> agents = servingAgents(spec);
    push(
        agents,
        spec.name(),
        Command.newBuilder()
            .setUpdateAccount(UpdateAccount.newBuilder().setAccount(spec.toProto())));
    accounts.updateDynamic(spec);
    if (existing.definition() != null && !existing.definition().servedByTheSameAgentsAs(spec)) {
      agentsOf(existing.definition()).stream()
          .filter(agent -> !agents.contains(agent))
          .forEach(agent -> removeFrom(agent, spec.name()));
    }
    return accounts.find(spec.name()).orElseThrow();
  }

  /** Switches an account on ({@code ACTIVE}) or off ({@code INACTIVE}). */
  public void setActive(String name, boolean active) {
    boolean known = registry.find(name).isPresent() || table.flatMap(t -> t.find(name)).isPresent();
    if (!known) {
      throw notFound("no account named '" + name + "'");
    }
    refuseWhenServedElsewhere(name, active ? "switch on" : "switch off");
    table.ifPresent(t -> t.setInactive(name, !active));
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
    Optional<StoredAccount> stored = table.flatMap(t -> t.find(name));
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
            table.get().markRemoved(name);
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
    AccountTable accounts = requireTable();
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
        validate(spec);
        requireFreeName(name, accounts);
        List<AgentLink> agents = servingAgents(spec);
        if (!accounts.insertDynamic(spec, AccountSource.MIGRATED)) {
          throw conflict("account '" + name + "' already exists");
        }
        try {
          push(
              agents,
              name,
              Command.newBuilder()
                  .setAddAccount(AddAccount.newBuilder().setAccount(spec.toProto())));
        } catch (RuntimeException e) {
          accounts.delete(name);
          throw e;
        }
        // The bridge replaces the definition once the agent serves the account (source MIGRATED).
        results.add(MigrationResult.migrated(name));
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
    if (table.isEmpty()) {
      return;
    }
    List<StoredAccount> mine;
    try {
      mine =
          table.get().dynamicAccounts().stream()
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
      agent
          .command(
              Command.newBuilder()
                  .setAddAccount(
                      AddAccount.newBuilder().setAccount(account.definition().toProto())),
              commandTimeout)
          .whenComplete(
              (result, error) -> {
                String problem =
                    error != null ? error.getMessage() : result.getOk() ? null : result.getError();
                if (problem != null) {
                  log.warn(
                      "Agent '{}' did not take dynamic account '{}': {}",
                      agent.agentId(),
                      account.name(),
                      problem);
                  table
                      .get()
                      .recordFailure(account.name(), "agent '" + agent.agentId() + "': " + problem);
                }
              });
    }
  }

  private void push(List<AgentLink> agents, String name, Command.Builder command) {
    List<CompletableFuture<CommandResult>> results =
        agents.stream().map(agent -> agent.command(command.clone(), commandTimeout)).toList();
    List<String> refusals = new ArrayList<>();
    int accepted = 0;
    for (int i = 0; i < agents.size(); i++) {
      String agent = agents.get(i).agentId();
      try {
        CommandResult result = results.get(i).get();
        if (result.getOk()) {
          accepted++;
        } else {
          refusals.add("agent '" + agent + "': " + result.getError());
        }
      } catch (ExecutionException e) {
        refusals.add(
            "agent '"
                + agent
                + "': "
                + (e.getCause() instanceof java.util.concurrent.TimeoutException
                    ? "no answer within " + commandTimeout
                    : e.getCause().getMessage()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AccountRequestException(
            AccountRequestException.Problem.UNAVAILABLE, "interrupted");
      }
    }
    if (accepted == 0) {
      throw invalid("account '" + name + "' was refused: " + String.join("; ", refusals));
    }
    if (!refusals.isEmpty()) {
      log.warn("Account '{}': some agents refused it: {}", name, refusals);
    }
  }

  private void removeFrom(AgentLink agent, String name) {
    agent
        .command(
            Command.newBuilder().setRemoveAccount(RemoveAccount.newBuilder().setName(name)),
            commandTimeout)
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
      throw conflict(
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

  private void requireFreeName(String name, AccountTable accounts) {
    if (registry.find(name).filter(a -> a.state() != AccountState.REMOVED).isPresent()) {
      throw conflict(
          "account '" + name + "' already exists: an agent serves it from its configuration");
    }
    Optional<StoredAccount> stored = accounts.find(name);
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
    stored.ifPresent(removed -> accounts.delete(name));
  }

  private StoredAccount dynamicAccount(String name, AccountTable accounts) {
    StoredAccount stored =
        accounts.find(name).orElseThrow(() -> notFound("no account named '" + name + "'"));
    if (stored.definition() == null) {
      throw conflict("account '" + name + "' comes from an agent's configuration: change it there");
    }
    return stored;
  }

  private AccountTable requireTable() {
    return table.orElseThrow(
        () ->
            new AccountRequestException(
                AccountRequestException.Problem.UNAVAILABLE,
                "dynamic accounts need Clouddriver's SQL database (sql.enabled: true): SpinAgent"
                    + " stores them there"));
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
    if (spec.kubeconfigContents() != null) {
      KubeconfigCheck.problem(spec.kubeconfigContents(), spec.context())
          .ifPresent(
              problem -> {
                throw invalid(problem);
              });
    }
  }

  private static String describeTarget(DynamicAccountSpec spec) {
    return spec.agentId() != null
        ? "agent '" + spec.agentId() + "'"
        : "zone '" + spec.zoneId() + "'";
  }

  /** The outcome of migrating one account. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record MigrationResult(String name, boolean migrated, String error) {
    static MigrationResult migrated(String name) {
      return new MigrationResult(name, true, null);
    }

    static MigrationResult failed(String name, String error) {
      return new MigrationResult(name, false, error);
    }
  }
}
