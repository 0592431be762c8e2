package io.spinagent.benchmarks.fleet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fault soak's check that the four views of every account agree once a round is quiet (issue
 * 34): the REST API of each replica ({@code GET /spinagent/accounts}), the account's row in {@code
 * spinagent_accounts}, Clouddriver's definition in its account storage ({@code accounts}, what
 * {@code /credentials} serves), and what its agent serves ({@code /accounts} of the agent's admin
 * port).
 *
 * <p>An account agrees when both replicas and the row show the same settled state — {@code ACTIVE},
 * {@code INACTIVE}, or absent (never created, or deleted: {@code REMOVED} rows count as absent) —
 * and the other views follow from it:
 *
 * <ul>
 *   <li>ACTIVE: Clouddriver has SpinAgent's definition (its kubeconfig is the account's tunnel),
 *       the row says so, and its agent has it READY;
 *   <li>INACTIVE: no definition, and its agent does not watch it (absent, or REFUSED);
 *   <li>absent: no definition, and its agent does not hold it.
 * </ul>
 *
 * <p>An agent's own accounts must be ACTIVE; no agent but its own may hold a dynamic account.
 */
final class AccountViewsCheck {

  /** Agent states of an account it does not watch. */
  private static final Set<String> NOT_WATCHED = Set.of("REFUSED", "STOPPED");

  private static final String ABSENT = "absent";

  private final FleetDatabase.Scenario database;
  private final List<PluginReplica> replicas;
  private final List<SoakAgent> agents;

  AccountViewsCheck(
      FleetDatabase.Scenario database, List<PluginReplica> replicas, List<SoakAgent> agents) {
    this.database = database;
    this.replicas = List.copyOf(replicas);
    this.agents = List.copyOf(agents);
  }

  /** The dynamic accounts by state at the last check, when their views agreed. */
  private Map<String, Integer> dynamicStates = Map.of();

  /** One row of {@code spinagent_accounts}, as far as the check needs it. */
  private record Row(String state, boolean clouddriverDefinition) {}

  /**
   * Where the views disagree, a line per account naming every view; empty if they all agree.
   *
   * @param configured the agents' own accounts (which must be ACTIVE), each with its agent's id
   * @param dynamic the accounts the API creates and deletes, each with its agent's id
   */
  List<String> disagreements(Map<String, String> configured, Map<String, String> dynamic) {
    List<String> issues = new ArrayList<>();
    Map<String, Map<String, String>> rest = new LinkedHashMap<>();
    for (PluginReplica replica : replicas) {
      Map<String, String> states = replica.accountStates();
      if (states == null) {
        issues.add(replica + " does not answer GET /spinagent/accounts");
      }
      rest.put(replica.name(), states);
    }
    Map<String, Map<String, String>> served = new LinkedHashMap<>();
    for (SoakAgent agent : agents) {
      Map<String, String> states = agent.accountStates();
      if (states == null) {
        issues.add("agent " + agent.id() + " does not answer /accounts");
      }
      served.put(agent.id(), states);
    }
    if (!issues.isEmpty()) {
      return issues;
    }
    Map<String, Row> rows;
    Map<String, String> definitions;
    try (Connection connection = database.open();
        Statement statement = connection.createStatement()) {
      rows = rows(statement);
      definitions = definitions(statement);
    } catch (SQLException e) {
      return List.of("cannot read spinagent_accounts and accounts: " + e.getMessage());
    }
    Map<String, String> all = new TreeMap<>(dynamic);
    all.putAll(configured);
    all.forEach(
        (account, agentId) -> {
          String problem =
              problem(
                  account,
                  agentId,
                  configured.containsKey(account),
                  rest,
                  rows.get(account),
                  definitions.get(account),
                  served);
          if (problem != null) {
            issues.add(problem);
          }
        });
    if (issues.isEmpty()) {
      Map<String, Integer> states = new TreeMap<>();
      dynamic
          .keySet()
          .forEach(
              account -> {
                Row row = rows.get(account);
                String state = row == null || row.state().equals("REMOVED") ? ABSENT : row.state();
                states.merge(state, 1, Integer::sum);
              });
      dynamicStates = states;
    }
    return issues;
  }

  /** What is wrong with one account's views, naming them all; null when they agree. */
  private static String problem(
      String account,
      String agentId,
      boolean configured,
      Map<String, Map<String, String>> rest,
      Row row,
      String definition,
      Map<String, Map<String, String>> served) {
    List<String> wrong = new ArrayList<>();
    String rowState = row == null || row.state().equals("REMOVED") ? ABSENT : row.state();
    String state = configured ? "ACTIVE" : rowState;
    if (!state.equals("ACTIVE") && !state.equals("INACTIVE") && !state.equals(ABSENT)) {
      wrong.add("not settled");
    }
    rest.forEach(
        (replica, states) -> {
          if (!states.getOrDefault(account, ABSENT).equals(state)) {
            wrong.add("replica " + replica + " differs");
          }
        });
    if (!rowState.equals(state)) {
      wrong.add("the row differs");
    }
    boolean spinAgents = definition != null && definition.contains("/clusters/" + account);
    if (definition != null && !spinAgents) {
      wrong.add("Clouddriver's definition is not SpinAgent's");
    }
    if (state.equals("ACTIVE") != spinAgents) {
      wrong.add(spinAgents ? "a definition without being ACTIVE" : "no definition while ACTIVE");
    }
    if (row != null && row.clouddriverDefinition() != spinAgents) {
      wrong.add("the row's clouddriver_definition is " + row.clouddriverDefinition());
    }
    String atAgent = served.get(agentId).getOrDefault(account, ABSENT);
    boolean agentAgrees =
        switch (state) {
          case "ACTIVE" -> atAgent.equals("READY");
          case "INACTIVE" -> atAgent.equals(ABSENT) || NOT_WATCHED.contains(atAgent);
          default -> atAgent.equals(ABSENT) || atAgent.equals("STOPPED");
        };
    if (!agentAgrees) {
      wrong.add("its agent differs");
    }
    List<String> others = new ArrayList<>();
    if (!configured) {
      served.forEach(
          (other, states) -> {
            String held = states.getOrDefault(account, ABSENT);
            if (!other.equals(agentId) && !held.equals(ABSENT) && !held.equals("STOPPED")) {
              others.add(other + " " + held);
            }
          });
    }
    if (!others.isEmpty()) {
      wrong.add("held by other agents " + others);
    }
    if (wrong.isEmpty()) {
      return null;
    }
    StringBuilder line = new StringBuilder("account ").append(account).append(": ");
    line.append(String.join(", ", wrong)).append(" —");
    rest.forEach(
        (replica, states) ->
            line.append(" replica ")
                .append(replica)
                .append(' ')
                .append(states.getOrDefault(account, ABSENT))
                .append(','));
    line.append(" row ").append(row == null ? ABSENT : row.state());
    if (row != null) {
      line.append(" (clouddriver_definition ").append(row.clouddriverDefinition()).append(')');
    }
    line.append(", definition ")
        .append(definition == null ? ABSENT : spinAgents ? "SpinAgent's" : "another writer's");
    line.append(", agent ").append(agentId).append(' ').append(atAgent);
    return line.toString();
  }

  /**
   * How many dynamic accounts were in each state ({@code ACTIVE}, {@code INACTIVE}, {@code absent})
   * when the views last agreed.
   */
  Map<String, Integer> dynamicStates() {
    return dynamicStates;
  }

  private static Map<String, Row> rows(Statement statement) throws SQLException {
    Map<String, Row> rows = new TreeMap<>();
    try (ResultSet result =
        statement.executeQuery(
            "SELECT name, state, clouddriver_definition FROM spinagent_accounts")) {
      while (result.next()) {
        rows.put(result.getString(1), new Row(result.getString(2), result.getBoolean(3)));
      }
    }
    return rows;
  }

  /** Clouddriver's account storage: each definition's body by account name. */
  private static Map<String, String> definitions(Statement statement) throws SQLException {
    Map<String, String> definitions = new TreeMap<>();
    try (ResultSet result = statement.executeQuery("SELECT id, body FROM accounts")) {
      while (result.next()) {
        definitions.put(result.getString(1), result.getString(2));
      }
    }
    return definitions;
  }
}
