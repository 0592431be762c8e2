package io.spinagent.benchmarks.fleet;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What keeps the fault soak's fleet from being quiet, cheapest first: an agent ended, not
 * answering, or with changes not yet acknowledged; then the four views of an account disagreeing
 * ({@link AccountViewsCheck}: every agent's own account ACTIVE and READY, every dynamic account
 * settled); then the cache differing from the clusters ({@link SoakComparison}).
 */
final class QuietCheck {

  private final List<SoakAgent> agents;
  private final List<SoakCluster> clusters;
  private final AccountViewsCheck views;
  private final Map<String, String> configured = new LinkedHashMap<>();
  private final Map<String, String> dynamic;
  private final FleetDatabase.Scenario database;
  private final String dialect;

  /**
   * @param dynamic the accounts the API creates and deletes, each with its agent's id (none without
   *     API churn)
   * @param dialect {@code postgres} or {@code mariadb}
   */
  QuietCheck(
      List<SoakAgent> agents,
      List<SoakCluster> clusters,
      AccountViewsCheck views,
      Map<String, String> dynamic,
      FleetDatabase.Scenario database,
      String dialect) {
    this.agents = List.copyOf(agents);
    this.clusters = List.copyOf(clusters);
    this.views = views;
    this.dynamic = Map.copyOf(dynamic);
    this.database = database;
    this.dialect = dialect;
    for (SoakAgent agent : agents) {
      agent.clusters().forEach(cluster -> configured.put(cluster.account(), agent.id()));
    }
  }

  /** The dynamic accounts by state when the fleet was last quiet. */
  Map<String, Integer> dynamicStates() {
    return views.dynamicStates();
  }

  /** What keeps the fleet from being quiet now; empty when it is. */
  List<String> unsettled() {
    List<String> issues = new ArrayList<>();
    for (SoakAgent agent : agents) {
      if (!agent.isAlive()) {
        issues.add("agent " + agent.id() + " ended (see " + agent.log() + ")");
        continue;
      }
      SoakAgent.Health health = agent.health();
      if (health == null) {
        issues.add("agent " + agent.id() + " does not answer /metrics");
      } else if (health.unacknowledged() != 0) {
        issues.add(
            "agent "
                + agent.id()
                + ": "
                + health.unacknowledged()
                + " outbox entries unacknowledged");
      }
    }
    if (issues.isEmpty()) {
      issues.addAll(views.disagreements(configured, dynamic));
    }
    if (issues.isEmpty()) {
      try {
        issues.addAll(SoakComparison.differences(database, dialect, clusters));
      } catch (IllegalStateException e) {
        issues.add(e.getMessage());
      }
    }
    return issues;
  }
}
