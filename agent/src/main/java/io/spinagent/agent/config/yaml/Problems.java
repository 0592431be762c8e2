package io.spinagent.agent.config.yaml;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects every problem found while reading and binding the configuration, so the operator sees
 * all of them in one run instead of fixing them one restart at a time. Warnings are kept apart:
 * they name settings the agent reads but applies differently (mostly Armory Scale Agent's), and
 * never stop it.
 *
 * <p>At most {@link #MAX_KEPT} of each are kept and the rest only counted: a file of a million
 * wrong keys is still refused with a report that fits in memory and on a screen.
 */
public final class Problems {

  /** Problems, and warnings, kept of one configuration; docs/agent-configuration.md says so. */
  public static final int MAX_KEPT = 1000;

  private final List<ConfigProblem> problems = new ArrayList<>();
  private final List<ConfigProblem> warnings = new ArrayList<>();
  private int omittedProblems;
  private int omittedWarnings;

  public Problems() {}

  public void add(Origin origin, String keyPath, String message) {
    if (problems.size() < MAX_KEPT) {
      problems.add(new ConfigProblem(origin, keyPath, message));
    } else {
      omittedProblems++;
    }
  }

  public void warn(Origin origin, String keyPath, String message) {
    if (warnings.size() < MAX_KEPT) {
      warnings.add(new ConfigProblem(origin, keyPath, message));
    } else {
      omittedWarnings++;
    }
  }

  public boolean isEmpty() {
    return problems.isEmpty();
  }

  /** The problems kept, in the order found. */
  public List<ConfigProblem> asList() {
    return List.copyOf(problems);
  }

  /** The warnings kept, in the order found. */
  public List<ConfigProblem> warnings() {
    return List.copyOf(warnings);
  }

  /** Problems found past {@link #MAX_KEPT}. */
  public int omittedProblems() {
    return omittedProblems;
  }

  /** Warnings found past {@link #MAX_KEPT}. */
  public int omittedWarnings() {
    return omittedWarnings;
  }
}
