package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The real agent ({@code java -jar spinagent-agent.jar}) in a JVM of its own on the agent's JDK, in
 * infrastructure mode: a configuration file naming one kubeconfig per account.
 */
final class AgentJar {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private AgentJar() {}

  /**
   * Writes the agent's configuration.
   *
   * @param kubeconfigs account name → its kubeconfig file, in the order the accounts are listed
   */
  static Path writeConfig(
      Path file, String agentId, int grpcPort, int adminPort, Map<String, Path> kubeconfigs) {
    StringBuilder yaml = new StringBuilder();
    yaml.append("agent:\n  id: ").append(agentId).append('\n');
    yaml.append("clouddriver:\n  grpc: 127.0.0.1:").append(grpcPort).append("\n  insecure: true\n");
    yaml.append("server:\n  port: ").append(adminPort).append('\n');
    yaml.append("kubernetes:\n  accounts:");
    if (kubeconfigs.isEmpty()) {
      yaml.append(" []\n");
    } else {
      yaml.append('\n');
      kubeconfigs.forEach(
          (name, kubeconfig) ->
              yaml.append("    - name: ")
                  .append(name)
                  .append("\n      kubeconfigFile: ")
                  .append(kubeconfig.toAbsolutePath())
                  .append('\n'));
    }
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      return Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The JVM options the agent's image and manifests ship (deploy/image/Dockerfile's {@code
   * JAVA_TOOL_OPTIONS}) but the heap's size, which the benchmark sets: the agent is measured as it
   * is deployed. The informer baseline runs with the same heap options.
   */
  static final List<String> SHIPPED_HEAP_OPTIONS =
      List.of("-XX:MaxHeapFreeRatio=30", "-XX:MinHeapFreeRatio=10");

  /** Starts the agent with {@code config}; its output goes to {@code <name>.log}. */
  static ChildProcess start(FleetEnvironment environment, Path config, String name) {
    return start(environment, config, name, List.of(), false);
  }

  /**
   * Starts the agent with {@code config}.
   *
   * @param jvmOptions more options for its JVM
   * @param lowestPriority at the lowest CPU priority, for an agent that stands in for one on
   *     another machine ({@link ChildProcess#atLowestPriority})
   */
  static ChildProcess start(
      FleetEnvironment environment,
      Path config,
      String name,
      List<String> jvmOptions,
      boolean lowestPriority) {
    List<String> command = new ArrayList<>();
    command.add(environment.agentJdk().java().toString());
    command.add("-Xmx" + environment.options().agentHeap());
    command.addAll(SHIPPED_HEAP_OPTIONS);
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(environment.options().agentJar().toString());
    command.add("--config");
    command.add(config.toString());
    return ChildProcess.start(
        name,
        lowestPriority ? ChildProcess.atLowestPriority(command) : command,
        environment.logs().resolve(name + ".log"),
        environment.agentJdk().home());
  }

  /** Waits until the agent's {@code /health} answers 200. */
  static void awaitHealth(ChildProcess agent, int adminPort) {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (System.nanoTime() < deadline && agent.isAlive()) {
      try {
        HttpResponse<Void> health =
            HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/health"))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (health.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Still starting.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      Sleep.of(Duration.ofMillis(200));
    }
    throw new IllegalStateException(agent.name() + " did not get healthy; see " + agent.log());
  }

  /** The agent's {@code /accounts} document. */
  static String accounts(int adminPort) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/accounts"))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
