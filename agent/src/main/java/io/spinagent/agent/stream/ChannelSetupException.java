package io.spinagent.agent.stream;

/**
 * The configuration of the connection to Clouddriver cannot be put to use (a certificate file is
 * missing, a key is not PEM, ...). The message starts with the configuration key at fault, so the
 * operator knows what to fix.
 */
public final class ChannelSetupException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String key;
  private final String problem;

  ChannelSetupException(String key, String problem, Throwable cause) {
    super(key + ": " + problem, cause);
    this.key = key;
    this.problem = problem;
  }

  /** The configuration key at fault, e.g. {@code clouddriver.tls.cacertFile}. */
  public String key() {
    return key;
  }

  /** What is wrong, without the key. */
  public String problem() {
    return problem;
  }
}
