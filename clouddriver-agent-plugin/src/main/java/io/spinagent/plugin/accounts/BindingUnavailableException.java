package io.spinagent.plugin.accounts;

/**
 * What decides an agent's claims could not be read or recorded (say, the database is unreachable):
 * the principals accounts are bound to, or which accounts are switched off. The claims were not
 * decided, and the agent should claim them again later.
 */
public final class BindingUnavailableException extends RuntimeException {

  public BindingUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
