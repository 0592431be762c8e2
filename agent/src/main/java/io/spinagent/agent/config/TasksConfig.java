package io.spinagent.agent.config;

/**
 * How much concurrent Kubernetes work (lists, relayed operations) the agent allows, which bounds
 * the memory burst when many accounts start at once ({@code tasks.*}).
 *
 * @param totalBudget concurrent tasks across all accounts; {@link #UNLIMITED} for no limit ({@code
 *     0} in the file)
 * @param budgetPerAccount concurrent tasks for any one account, so that one large cluster cannot
 *     take the whole budget; at most {@code totalBudget} ({@code 0} in the file: that)
 */
public record TasksConfig(int totalBudget, int budgetPerAccount) {

  /** Armory Scale Agent's defaults. */
  public static final int DEFAULT_TOTAL_BUDGET = 1000;

  public static final int DEFAULT_BUDGET_PER_ACCOUNT = 50;

  /** No limit. */
  public static final int UNLIMITED = Integer.MAX_VALUE;
}
