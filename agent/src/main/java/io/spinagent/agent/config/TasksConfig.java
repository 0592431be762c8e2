package io.spinagent.agent.config;

/**
 * How much concurrent Kubernetes work (lists, relayed operations) the agent allows, which bounds
 * the memory burst when many accounts start at once ({@code tasks.*}).
 *
 * @param totalBudget concurrent tasks across all accounts
 * @param budgetPerAccount concurrent tasks for any one account, so that one large cluster cannot
 *     take the whole budget; at most {@code totalBudget}
 */
public record TasksConfig(int totalBudget, int budgetPerAccount) {

  /** Armory Scale Agent's defaults. */
  public static final int DEFAULT_TOTAL_BUDGET = 1000;

  public static final int DEFAULT_BUDGET_PER_ACCOUNT = 50;
}
