package io.spinagent.agent.stream;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import io.spinagent.agent.config.AuthConfig;
import io.spinagent.agent.config.yaml.BoundedFiles;
import io.spinagent.common.DaemonThreads;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Presents {@code clouddriver.auth.token}, the content of {@code clouddriver.auth.tokenFile} or the
 * output of {@code clouddriver.auth.tokenCommand} as {@code authorization: Bearer <token>} on each
 * call. The agent makes one call per connection, so the file is simply read again for each (a
 * rotated Secret is picked up at the next reconnect), and the command run again once its token is
 * older than {@code refreshIntervalSeconds}. The token itself is never logged or put in an error
 * message.
 */
final class BearerTokenCredentials extends CallCredentials implements AutoCloseable {

  /** A bearer token is a line of a few kilobytes (a JWT); a file far larger is the wrong file. */
  static final long MAX_TOKEN_FILE_BYTES = 64L << 10;

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Optional<String> token;
  private final Optional<Path> tokenFile;
  private final Optional<TokenCommand> tokenCommand;

  /** Runs the token command, which may take seconds, off gRPC's and the stream's threads. */
  private final Optional<ExecutorService> commandThread;

  private BearerTokenCredentials(
      Optional<String> token, Optional<Path> tokenFile, Optional<TokenCommand> tokenCommand) {
    this.token = token;
    this.tokenFile = tokenFile;
    this.tokenCommand = tokenCommand;
    this.commandThread =
        tokenCommand.map(
            command -> Executors.newSingleThreadExecutor(DaemonThreads.named("spinagent-token")));
  }

  /** Credentials for {@code auth}, or empty when no token is configured. */
  static Optional<BearerTokenCredentials> from(AuthConfig auth) {
    if (!auth.isConfigured()) {
      return Optional.empty();
    }
    Optional<TokenCommand> command = auth.tokenCommand().map(TokenCommand::new);
    if (command.isPresent()) {
      // A command that cannot be found stops the agent now; one that fails is run again later.
      command.get().checkRunnable();
    }
    BearerTokenCredentials credentials =
        new BearerTokenCredentials(auth.token(), auth.tokenFile(), command);
    if (command.isEmpty()) {
      // Fail at start-up rather than at the first connection when the file is not there at all.
      credentials.currentToken();
    }
    return Optional.of(credentials);
  }

  /**
   * The token to present now.
   *
   * @throws ChannelSetupException when the file cannot be read, the command fails, or either holds
   *     no token
   */
  String currentToken() {
    if (token.isPresent()) {
      return checked("clouddriver.auth.token", "the token", token.get().strip());
    }
    if (tokenCommand.isPresent()) {
      return checked(TokenCommand.KEY, "the output of the command", tokenCommand.get().token());
    }
    Path file = tokenFile.orElseThrow();
    String content;
    try {
      content = BoundedFiles.readUtf8(file, MAX_TOKEN_FILE_BYTES, "a bearer token file").strip();
    } catch (BoundedFiles.UnreadableFileException e) {
      throw new ChannelSetupException(
          "clouddriver.auth.tokenFile",
          "cannot read the bearer token from " + file + ": it " + e.reason(),
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
    Runnable apply =
        () -> {
          try {
            Metadata headers = new Metadata();
            headers.put(AUTHORIZATION, "Bearer " + currentToken());
            applier.apply(headers);
          } catch (ChannelSetupException e) {
            // The cause tells the stream's log that the agent, not Clouddriver, failed the call.
            applier.fail(Status.UNAUTHENTICATED.withDescription(e.getMessage()).withCause(e));
          }
        };
    try {
      commandThread.map(Executor.class::cast).orElse(appExecutor).execute(apply);
    } catch (RejectedExecutionException closed) {
      applier.fail(Status.UNAVAILABLE.withDescription("the agent is stopping"));
    }
  }

  @Override
  public void close() {
    commandThread.ifPresent(ExecutorService::shutdownNow);
  }
}
