package io.spinagent.agent;

/**
 * The agent's exit codes. Distinct codes let an init container, a CI step or a supervisor tell a
 * bad command line from a bad configuration without parsing messages.
 */
final class ExitCodes {

  /** {@code --check}: the configuration is valid; without it: the agent ran and was stopped. */
  static final int OK = 0;

  /** An unexpected internal error (picocli's code for an exception escaping the command). */
  static final int SOFTWARE = 1;

  /** The command line is wrong: unknown option, missing {@code --config} (picocli's usage code). */
  static final int USAGE = 2;

  /**
   * The configuration file is missing, unreadable, not YAML or too large, breaks a rule, or names a
   * file the agent cannot use (a token, CA or key file, a kubeconfig).
   */
  static final int INVALID_CONFIG = 3;

  private ExitCodes() {}
}
