package io.spinagent.agent.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A command that prints the bearer token for Clouddriver ({@code clouddriver.auth.tokenCommand.*},
 * as in Armory Scale Agent). It is run without a shell, so {@code args} reach it exactly as
 * written.
 *
 * @param command the program: a path, or a name looked up on {@code PATH}
 * @param args its arguments
 * @param format how its output is read
 * @param refreshIntervalSeconds how long a token it printed is used before it is run again; 0 runs
 *     it for every connection to Clouddriver
 */
public record TokenCommandConfig(
    String command, List<String> args, Format format, int refreshIntervalSeconds) {

  public TokenCommandConfig {
    Objects.requireNonNull(command, "command");
    args = List.copyOf(args);
    Objects.requireNonNull(format, "format");
  }

  /** How the command's standard output is read. */
  public enum Format {
    /** The whole output, without surrounding white space, is the token. */
    RAW,
    /** The output is a JSON object whose {@code token} field is the token. */
    JSON;

    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
