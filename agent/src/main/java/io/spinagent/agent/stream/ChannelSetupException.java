package io.spinagent.agent.stream;

/**
 * The configuration of the connection to Clouddriver cannot be put to use (a certificate file is
 * missing, a key is not PEM, ...). The message starts with the configuration key at fault, so the
 * operator knows what to fix.
 */
public final class ChannelSetupException extends RuntimeException {

  private final String key;

  ChannelSetupException(String key, String message, Throwable cause) {
    super(key + ": " + message, cause);
    this.key = key;
  }

  /** The configuration key at fault, e.g. {@code clouddriver.tls.cacertFile}. */
  public String key() {
    return key;
  }
}
