package io.spinagent.agent.cluster;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The cluster side's meters: accounts per state, watched kinds, watches and known objects. Gauges
 * read the manager's status when scraped, so nothing is counted twice.
 */
public final class ClusterMetrics {

  private ClusterMetrics() {}

  public static void register(MeterRegistry registry, ClusterManager manager) {
    for (AccountState state : AccountState.values()) {
      Gauge.builder(
              "spinagent.accounts",
              manager,
              m -> m.statuses().stream().filter(s -> s.state() == state).count())
          .tag("state", state.name())
          .description("Accounts by state, configured and dynamic")
          .register(registry);
    }
    Gauge.builder("spinagent.accounts.dynamic", manager, ClusterManager::dynamicAccounts)
        .description("Dynamic accounts: added by Clouddriver's commands, held in memory")
        .register(registry);
    Gauge.builder(
            "spinagent.kubernetes.watched.kinds",
            manager,
            m -> m.statuses().stream().mapToInt(s -> s.watchedKinds().size()).sum())
        .description("Kinds watched across all accounts")
        .register(registry);
    Gauge.builder(
            "spinagent.kubernetes.unwatchable.kinds",
            manager,
            m -> m.statuses().stream().mapToInt(s -> s.unwatchableKinds().size()).sum())
        .description("Kinds asked for but not permitted by RBAC, across all accounts")
        .register(registry);
    Gauge.builder("spinagent.kubernetes.lists.inflight", manager, ClusterManager::listsInFlight)
        .description("Lists running now, bounded by tasks.totalBudget and tasks.budgetPerAccount")
        .register(registry);
    Gauge.builder(
            "spinagent.kubernetes.objects",
            manager,
            m -> m.statuses().stream().mapToInt(AccountStatus::objects).sum())
        .description(
            "Objects the agent knows of (key and resourceVersion each) across all accounts")
        .register(registry);
    Gauge.builder("spinagent.kubernetes.watches", manager, ClusterManager::watchLoops)
        .description(
            "List-then-watch loops running, one per account, kind and namespace scope; each holds"
                + " one connection")
        .register(registry);
  }
}
