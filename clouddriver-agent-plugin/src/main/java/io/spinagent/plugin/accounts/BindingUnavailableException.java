package io.spinagent.plugin.accounts;

/**
 * The principals accounts are bound to could not be read or recorded (say, the database is
 * unreachable): the claims were not decided, and the agent should claim them again later.
 */
public final class BindingUnavailableException extends RuntimeException {

  public BindingUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
