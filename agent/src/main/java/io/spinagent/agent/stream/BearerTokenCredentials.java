package io.spinagent.agent.stream;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import io.spinagent.agent.config.AuthConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Presents {@code clouddriver.auth.token} or the content of {@code clouddriver.auth.tokenFile} as
 * {@code authorization: Bearer <token>} on each call. The agent makes one call per connection, so
 * the file is simply read again for each: a rotated Secret is picked up at the next reconnect. The
 * token itself is never logged or put in an error message.
 */
final class BearerTokenCredentials extends CallCredentials {

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Optional<String> token;
  private final Optional<Path> tokenFile;

  private BearerTokenCredentials(Optional<String> token, Optional<Path> tokenFile) {
    this.token = token;
    this.tokenFile = tokenFile;
  }

  /** Credentials for {@code auth}, or empty when no token is configured. */
  static Optional<BearerTokenCredentials> from(AuthConfig auth) {
    if (!auth.isConfigured()) {
      return Optional.empty();
    }
    BearerTokenCredentials credentials = new BearerTokenCredentials(auth.token(), auth.tokenFile());
    // Fail at start-up rather than at the first connection when the file is not there at all.
    credentials.currentToken();
    return Optional.of(credentials);
  }

  /**
   * The token to present now.
   *
   * @throws ChannelSetupException when the file cannot be read or holds no token
   */
  String currentToken() {
    if (token.isPresent()) {
      return checked("clouddriver.auth.token", "the token", token.get().strip());
    }
    Path file = tokenFile.orElseThrow();
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new ChannelSetupException(
          "clouddriver.auth.tokenFile",
          "cannot read the bearer token from "
              + file
              + ": "
              + e.getClass().getSimpleName()
              + " "
              + e.getMessage(),
          e);
    }
    return checked("clouddriver.auth.tokenFile", file.toString(), content);
  }

  /** A token must fit in an HTTP/2 header: printable ASCII on one line. */
  private static String checked(String key, String where, String value) {
    if (value.isEmpty()) {
      throw new ChannelSetupException(
          key, where + " is empty; it must hold the bearer token", null);
    }
    if (value.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new ChannelSetupException(
          key,
          where
              + " holds more than one line or non-ASCII characters; a bearer token is one line of"
              + " printable ASCII",
          null);
    }
    return value;
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    appExecutor.execute(
        () -> {
          try {
            Metadata headers = new Metadata();
            headers.put(AUTHORIZATION, "Bearer " + currentToken());
            applier.apply(headers);
          } catch (ChannelSetupException e) {
            applier.fail(Status.UNAUTHENTICATED.withDescription(e.getMessage()));
          }
        });
  }
}
