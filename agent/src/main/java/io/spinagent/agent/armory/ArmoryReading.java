package io.spinagent.agent.armory;

import io.spinagent.agent.config.yaml.ConfigProblem;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A configuration file read for {@code spinagent-agent convert-armory}: the file as written, the
 * rewrites that carry it over to SpinAgent's forms, and what binding it found. Secret references
 * are checked but not resolved: the converted file keeps them as written.
 *
 * @param file the file read
 * @param tree its content as plain YAML data (maps, lists, strings, numbers, booleans, nulls)
 * @param rewrites what the converter changes, in the order the binder met them
 * @param problems what is wrong even after conversion; the converted file will not load until they
 *     are fixed
 * @param warnings what the agent would warn about if it read the file as written
 */
public record ArmoryReading(
    Path file,
    Map<String, Object> tree,
    List<ArmoryRewrite> rewrites,
    List<ConfigProblem> problems,
    List<ConfigProblem> warnings) {

  public ArmoryReading {
    rewrites = List.copyOf(rewrites);
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
  }
}
