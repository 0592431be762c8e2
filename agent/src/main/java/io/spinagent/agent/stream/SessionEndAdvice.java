package io.spinagent.agent.stream;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import io.grpc.Status;

/**
 * What the operator is told when a session with Clouddriver ends: why, and whether to act. An error
 * asks for a fix (credentials, versions, a duplicate agent id, a bug to report); a warning says the
 * agent tries again on its own.
 *
 * @param mustAct whether to log it as an error
 * @param message the line to log
 */
record SessionEndAdvice(boolean mustAct, String message) {

  /**
   * @param agent the agent's id
   * @param target Clouddriver's address
   * @param wasWelcomed whether Clouddriver had answered Hello
   */
  static SessionEndAdvice of(String agent, String target, Status status, boolean wasWelcomed) {
    String description = status.getDescription() == null ? "" : status.getDescription();
    Throwable cause = status.getCause();
    String causeText = cause == null ? "" : " (" + cause + ")";
    if (cause instanceof ChannelSetupException setup) {
      // The agent's own credentials failed (a token command, a token file): Clouddriver was not
      // even asked.
      return warn(
          "Agent '%s': no credentials to connect to Clouddriver at %s: %s; trying again with"
              + " clouddriver.backoff",
          agent, target, setup.getMessage());
    }
    return switch (status.getCode()) {
      case UNAUTHENTICATED, PERMISSION_DENIED ->
          error(
              "Agent '%s': Clouddriver at %s refused this agent's credentials: %s. Check"
                  + " clouddriver.auth.token / tokenFile and clouddriver.tls.clientCertFile against"
                  + " the plugin's spinagent.grpc.auth settings.",
              agent, target, description);
      case FAILED_PRECONDITION ->
          error(
              "Agent '%s': Clouddriver at %s ended the session: %s. This usually means the agent"
                  + " and plugin versions do not speak a common protocol version.",
              agent, target, description);
      case ALREADY_EXISTS ->
          error(
              "Agent '%s': Clouddriver at %s refused the session: %s. Another process uses the same"
                  + " agent.id; give each agent its own.",
              agent, target, description);
      case INVALID_ARGUMENT ->
          error(
              "Agent '%s': Clouddriver at %s rejected a frame from this agent: %s. This is a bug in"
                  + " the agent or the plugin; please report it with this message.",
              agent, target, description);
      case RESOURCE_EXHAUSTED ->
          warn(
              "Agent '%s': Clouddriver at %s ended the session for exceeding a limit: %s%s",
              agent, target, description, causeText);
      case UNAVAILABLE ->
          warn(
              "Agent '%s': %s Clouddriver at %s: %s%s",
              agent,
              wasWelcomed ? "lost the session with" : "cannot reach",
              target,
              description,
              causeText);
      default ->
          warn(
              "Agent '%s': session with Clouddriver at %s ended: %s %s%s",
              agent, target, status.getCode(), description, causeText);
    };
  }

  @FormatMethod
  private static SessionEndAdvice error(@FormatString String format, Object... args) {
    return new SessionEndAdvice(true, String.format(format, args));
  }

  @FormatMethod
  private static SessionEndAdvice warn(@FormatString String format, Object... args) {
    return new SessionEndAdvice(false, String.format(format, args));
  }
}
