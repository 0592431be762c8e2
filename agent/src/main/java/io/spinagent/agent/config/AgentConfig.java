package io.spinagent.agent.config;

import java.util.Objects;

/**
 * The agent's whole configuration, as read from {@code --config} and its {@code -local} overlay.
 * Immutable: a configuration change means a new instance. The keys, defaults and rules are
 * documented in {@code docs/agent-configuration.md}.
 *
 * @param agent how the agent identifies itself to Clouddriver ({@code agent.*})
 * @param clouddriver where and how to connect to Clouddriver ({@code clouddriver.*})
 * @param kubernetes the clusters to watch ({@code kubernetes.*})
 * @param server the agent's own HTTP endpoint ({@code server.*})
 * @param prometheus the metrics endpoint ({@code prometheus.*})
 * @param logging log format and level ({@code logging.*})
 * @param tasks how much concurrent Kubernetes work is allowed ({@code tasks.*})
 * @param timeoutSeconds upper bound, in seconds, for one Kubernetes API request ({@code
 *     timeoutSeconds})
 * @param operations what is done with the requests Clouddriver relays ({@code operations.*})
 */
public record AgentConfig(
    AgentIdentityConfig agent,
    ClouddriverConfig clouddriver,
    KubernetesConfig kubernetes,
    ServerConfig server,
    PrometheusConfig prometheus,
    LoggingConfig logging,
    TasksConfig tasks,
    int timeoutSeconds,
    OperationsConfig operations) {

  /**
   * Long enough for a large list page from a busy API server, short enough that a hung request does
   * not hold a task budget slot for minutes.
   */
  public static final int DEFAULT_TIMEOUT_SECONDS = 30;

  public AgentConfig {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(clouddriver, "clouddriver");
    Objects.requireNonNull(kubernetes, "kubernetes");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(prometheus, "prometheus");
    Objects.requireNonNull(logging, "logging");
    Objects.requireNonNull(tasks, "tasks");
    Objects.requireNonNull(operations, "operations");
  }

  /** With the default {@code operations.*}. */
  public AgentConfig(
      AgentIdentityConfig agent,
      ClouddriverConfig clouddriver,
      KubernetesConfig kubernetes,
      ServerConfig server,
      PrometheusConfig prometheus,
      LoggingConfig logging,
      TasksConfig tasks,
      int timeoutSeconds) {
    this(
        agent,
        clouddriver,
        kubernetes,
        server,
        prometheus,
        logging,
        tasks,
        timeoutSeconds,
        OperationsConfig.DEFAULT);
  }
}
