package io.spinagent.agent.config;

/**
 * What one pass of binding a configuration collects besides the configuration itself: problems, and
 * how secret references are handled.
 */
final class Binding {

  final Problems problems;
  final SecretReferences secrets;

  Binding(Problems problems, SecretReferences secrets) {
    this.problems = problems;
    this.secrets = secrets;
  }
}
