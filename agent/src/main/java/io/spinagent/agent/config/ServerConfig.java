package io.spinagent.agent.config;

/**
 * The agent's own HTTP endpoint for health and status ({@code server.*}).
 *
 * @param port TCP port, 1 to 65535
 */
public record ServerConfig(int port) {

  /** Armory Scale Agent's port, so existing probes and Services keep working. */
  public static final int DEFAULT_PORT = 8082;
}
