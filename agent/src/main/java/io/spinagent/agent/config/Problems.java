package io.spinagent.agent.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects every problem found while reading and binding the configuration, so the operator sees
 * all of them in one run instead of fixing them one restart at a time. Warnings are kept apart:
 * they name settings the agent reads but applies differently (mostly Armory Scale Agent's), and
 * never stop it.
 */
final class Problems {

  private final List<ConfigProblem> problems = new ArrayList<>();
  private final List<ConfigProblem> warnings = new ArrayList<>();

  void add(Origin origin, String keyPath, String message) {
    problems.add(new ConfigProblem(origin, keyPath, message));
  }

  void warn(Origin origin, String keyPath, String message) {
    warnings.add(new ConfigProblem(origin, keyPath, message));
  }

  boolean isEmpty() {
    return problems.isEmpty();
  }

  List<ConfigProblem> asList() {
    return List.copyOf(problems);
  }

  List<ConfigProblem> warnings() {
    return List.copyOf(warnings);
  }
}
