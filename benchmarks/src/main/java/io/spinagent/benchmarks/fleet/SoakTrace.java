package io.spinagent.benchmarks.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the fault soak's processes log beyond INFO, so that a change missing from the cache can be
 * followed from the agent's outbox to Clouddriver's commit: at the agent the sequence each change
 * takes, each batch sent, each acknowledgement and each account's committed sequence from
 * Clouddriver's decision; at the plugin each batch received and each commit, every line naming the
 * account and its sequences.
 */
final class SoakTrace {

  /** The plugin's DEBUG lines, as Spring logging levels. */
  static final Map<String, String> PLUGIN_PROPERTIES =
      Map.of(
          "logging.level.io.spinagent.plugin.grpc.session.AccountIntake", "DEBUG",
          "logging.level.io.spinagent.plugin.grpc.session.AgentSession", "DEBUG");

  private static final String AGENT_LOGGING =
      """
<configuration>
  <statusListener class="ch.qos.logback.core.status.NopStatusListener"/>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder>
      <pattern>%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n</pattern>
    </encoder>
  </appender>
  <logger name="io.spinagent.agent.stream.Outbox" level="TRACE"/>
  <logger name="io.spinagent.agent.stream.OutboxSender" level="DEBUG"/>
  <logger name="io.spinagent.agent.stream.ChannelSession" level="DEBUG"/>
  <logger name="io.spinagent.agent.stream.AgentStreamClient" level="DEBUG"/>
  <root level="INFO">
    <appender-ref ref="STDOUT"/>
  </root>
</configuration>
""";

  private SoakTrace() {}

  /**
   * The agents' JVM options: a logback configuration of their own ({@code dir/agent-logback.xml},
   * written here), which the agent then uses instead of its {@code logging.*} settings.
   */
  static List<String> agentJvmOptions(Path dir) {
    Path file = dir.resolve("agent-logback.xml");
    try {
      Files.createDirectories(dir);
      Files.writeString(file, AGENT_LOGGING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.of("-Dlogback.configurationFile=" + file.toAbsolutePath());
  }
}
