package io.spinagent.agent.stream;

import io.spinagent.agent.config.AgentIdentityConfig;
import java.util.Objects;

/**
 * How the agent introduces itself in Hello.
 *
 * @param agentId {@code agent.id}: one live session per id is allowed by the plugin
 * @param agentVersion the agent's version, shown in Clouddriver
 * @param zoneId {@code agent.zoneId}, or empty
 */
public record AgentIdentity(String agentId, String agentVersion, String zoneId) {

  public AgentIdentity {
    Objects.requireNonNull(agentId, "agentId");
    Objects.requireNonNull(agentVersion, "agentVersion");
    Objects.requireNonNull(zoneId, "zoneId");
  }

  public static AgentIdentity of(AgentIdentityConfig config, String agentVersion) {
    return new AgentIdentity(config.id(), agentVersion, config.zoneId().orElse(""));
  }
}
