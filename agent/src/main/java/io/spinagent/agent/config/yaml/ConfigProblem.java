package io.spinagent.agent.config.yaml;

import java.util.Objects;

/**
 * One thing wrong with the configuration, phrased for the operator who has to fix it.
 *
 * @param origin where the offending value (or the file that could not be read) is
 * @param keyPath the key path in the YAML, e.g. {@code kubernetes.accounts[1].name}; null when the
 *     problem concerns the whole file (unreadable, not YAML)
 * @param message what is wrong and, where we know it, how to fix it
 */
public record ConfigProblem(Origin origin, String keyPath, String message) {

  public ConfigProblem {
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(message, "message");
  }

  /** {@code file:line: key.path: message}. */
  public String describe() {
    return origin.describe() + ": " + (keyPath == null ? "" : keyPath + ": ") + message;
  }
}
