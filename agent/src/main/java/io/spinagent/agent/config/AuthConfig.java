package io.spinagent.agent.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The bearer token presented to the Clouddriver plugin ({@code clouddriver.auth.*}). At most one of
 * the three is set.
 *
 * @param token the token itself, written in the configuration
 * @param tokenFile a file holding the token, read when connecting (e.g. a mounted Secret), so that
 *     a rotated token is picked up without editing the configuration
 * @param tokenCommand a command that prints the token, run when connecting
 */
public record AuthConfig(
    Optional<String> token, Optional<Path> tokenFile, Optional<TokenCommandConfig> tokenCommand) {

  public AuthConfig {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(tokenFile, "tokenFile");
    Objects.requireNonNull(tokenCommand, "tokenCommand");
  }

  /** A token or a token file, without a command. */
  public AuthConfig(Optional<String> token, Optional<Path> tokenFile) {
    this(token, tokenFile, Optional.empty());
  }

  public boolean isConfigured() {
    return token.isPresent() || tokenFile.isPresent() || tokenCommand.isPresent();
  }

  /** Never prints the token: records print all their fields, and configs end up in logs. */
  @Override
  public String toString() {
    return "AuthConfig[token="
        + (token.isPresent() ? "<redacted>" : "<none>")
        + ", tokenFile="
        + tokenFile.map(Path::toString).orElse("<none>")
        + ", tokenCommand="
        + tokenCommand.map(TokenCommandConfig::command).orElse("<none>")
        + "]";
  }
}
