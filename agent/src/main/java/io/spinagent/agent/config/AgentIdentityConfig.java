package io.spinagent.agent.config;

import java.util.Objects;
import java.util.Optional;

/**
 * How this agent names itself in its handshake with Clouddriver ({@code agent.*}).
 *
 * @param id unique among the agents connected to one Spinnaker; defaults to the host name, which in
 *     Kubernetes is the pod name and therefore unique per replica
 * @param zoneId optional label for where the agent runs (region, data centre), shown with its
 *     accounts in Clouddriver
 */
public record AgentIdentityConfig(String id, Optional<String> zoneId) {

  public AgentIdentityConfig {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(zoneId, "zoneId");
  }
}
