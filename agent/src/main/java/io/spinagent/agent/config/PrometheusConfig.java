package io.spinagent.agent.config;

/**
 * The Prometheus metrics endpoint ({@code prometheus.*}).
 *
 * @param enabled whether to serve metrics; off unless asked for, like Armory Scale Agent
 * @param port TCP port, 1 to 65535, different from {@code server.port}
 */
public record PrometheusConfig(boolean enabled, int port) {

  public static final int DEFAULT_PORT = 8008;
}
