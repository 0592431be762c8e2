package io.spinagent.sandbox.agent;

import io.spinagent.agent.AgentRuntime;
import io.spinagent.agent.config.AccountPermissions;
import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.AgentIdentityConfig;
import io.spinagent.agent.config.AuthConfig;
import io.spinagent.agent.config.BackoffConfig;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.GrpcTarget;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.KubernetesConfig;
import io.spinagent.agent.config.LoggingConfig;
import io.spinagent.agent.config.OutboxConfig;
import io.spinagent.agent.config.PrometheusConfig;
import io.spinagent.agent.config.ServerConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.config.TlsConfig;
import io.spinagent.agent.config.binding.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The agent, in-process: the same {@link AgentRuntime} the agent's jar runs, with a configuration
 * built in code. (Its YAML loader needs a newer SnakeYAML than the Clouddriver class path the
 * sandbox runs on.) One account, the simulated cluster, with the default kinds.
 */
public final class SandboxAgent {

  public static final String AGENT_ID = "sandbox-agent";

  private SandboxAgent() {}

  /**
   * Starts the sandbox's agent, connected to the plugin's gRPC port and to the simulated cluster.
   *
   * @param caCertificate the CA that signed the plugin's gRPC certificate; empty for plaintext
   */
  public static AgentRuntime start(
      Path workDir,
      String account,
      Path clusterKubeconfig,
      int grpcPort,
      Optional<Path> caCertificate,
      int adminPort) {
    TlsConfig tls =
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), caCertificate);
    ClouddriverConfig clouddriver =
        new ClouddriverConfig(
            new GrpcTarget("localhost", grpcPort),
            caCertificate.isEmpty(),
            tls,
            new AuthConfig(Optional.empty(), Optional.empty()),
            ClouddriverConfig.DEFAULT_KEEP_ALIVE_HEARTBEAT_SECONDS,
            ClouddriverConfig.DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS,
            // Short delays: on a laptop the plugin is a moment away, and a reconnect should be
            // quick.
            new BackoffConfig(
                Duration.ofMillis(200),
                BackoffConfig.DEFAULT_MULTIPLIER,
                BackoffConfig.DEFAULT_JITTER,
                Duration.ofSeconds(5)),
            new OutboxConfig(OutboxConfig.DEFAULT_MAX_BYTES));
    KubernetesAccountConfig cluster =
        new KubernetesAccountConfig(
            account,
            Optional.of(clusterKubeconfig),
            false,
            Optional.empty(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            false,
            false,
            AccountPermissions.UNRESTRICTED,
            KubernetesAccountConfig.DEFAULT_MAX_RESUMABLE_RESOURCE_AGE);
    AgentConfig config =
        new AgentConfig(
            new AgentIdentityConfig(AGENT_ID, Optional.empty()),
            clouddriver,
            new KubernetesConfig(List.of(cluster)),
            new ServerConfig(adminPort),
            new PrometheusConfig(false, PrometheusConfig.DEFAULT_PORT),
            LoggingConfig.DEFAULT,
            new TasksConfig(
                TasksConfig.DEFAULT_TOTAL_BUDGET, TasksConfig.DEFAULT_BUDGET_PER_ACCOUNT),
            AgentConfig.DEFAULT_TIMEOUT_SECONDS);
    // The runtime watches its configuration file for changes; this one never changes.
    Path configFile = workDir.resolve("agent-config.txt");
    try {
      Files.writeString(
          configFile,
          "The sandbox builds the agent's configuration in code; this file only marks its"
              + " place.\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + configFile, e);
    }
    return AgentRuntime.start(configFile, config, new ConfigLoader(() -> AGENT_ID));
  }
}
