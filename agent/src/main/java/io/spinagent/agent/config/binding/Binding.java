package io.spinagent.agent.config.binding;

import io.spinagent.agent.armory.ArmoryRewrite;
import io.spinagent.agent.config.yaml.Problems;
import java.util.ArrayList;
import java.util.List;

/**
 * What one pass of binding a configuration collects besides the configuration itself: problems and
 * warnings, the rewrites that would carry Armory Scale Agent's forms over to SpinAgent's, and how
 * secret references are handled.
 */
final class Binding {

  final Problems problems;
  final SecretReferences secrets;
  private final List<ArmoryRewrite> rewrites = new ArrayList<>();

  Binding(Problems problems, SecretReferences secrets) {
    this.problems = problems;
    this.secrets = secrets;
  }

  void rewrite(ArmoryRewrite rewrite) {
    rewrites.add(rewrite);
  }

  /** True once a setting or value form only Armory Scale Agent uses has been met. */
  boolean usesArmoryForms() {
    return !rewrites.isEmpty();
  }

  List<ArmoryRewrite> rewrites() {
    return List.copyOf(rewrites);
  }
}
