package io.spinagent.agent.convert;

import io.spinagent.agent.armory.ArmoryReading;
import io.spinagent.agent.armory.ArmoryRewrite;
import io.spinagent.agent.config.binding.ConfigLoader;
import io.spinagent.agent.config.yaml.ConfigProblem;
import io.spinagent.agent.config.yaml.YamlOutput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Converts an agent configuration written for Armory Scale Agent ({@code armory-agent.yml}) into
 * the equivalent SpinAgent file. The agent's binder reads the file exactly as the agent would and
 * records each change; this class applies them and checks the result the same way, so that what is
 * written is what the agent would have made of the original. Secret references stay as written.
 */
public final class AgentFileConverter {

  private final ConfigLoader loader;

  public AgentFileConverter(ConfigLoader loader) {
    this.loader = Objects.requireNonNull(loader, "loader");
  }

  /**
   * What came of one file.
   *
   * @param yaml the converted file, or null when the input could not be read at all
   * @param changed settings rewritten into SpinAgent's form, with why
   * @param dropped settings left out because SpinAgent does not apply them, with what it does
   * @param problems what must still be fixed by hand (in the input's lines); the converted file
   *     does not load until then
   */
  public record Result(
      Path input,
      String yaml,
      List<ArmoryRewrite> changed,
      List<ArmoryRewrite> dropped,
      List<ConfigProblem> problems) {

    public Result {
      changed = List.copyOf(changed);
      dropped = List.copyOf(dropped);
      problems = List.copyOf(problems);
    }

    public boolean isClean() {
      return yaml != null && problems.isEmpty();
    }
  }

  /**
   * Converts Armory's agent configuration file at {@code input} to SpinAgent's.
   *
   * @param writtenAs where the result will be written (relative paths in it resolve from there), or
   *     null for beside the input
   */
  public Result convert(Path input, Path writtenAs) {
    List<ConfigProblem> unreadable = new ArrayList<>();
    ArmoryReading reading = loader.readForConversion(input, unreadable);
    if (reading == null) {
      return new Result(input, null, List.of(), List.of(), unreadable);
    }
    Map<String, Object> converted = TreeEdits.apply(reading.tree(), reading.rewrites());
    String yaml = converted.isEmpty() ? "{}\n" : YamlOutput.dump(converted);

    List<ArmoryRewrite> changed = new ArrayList<>();
    List<ArmoryRewrite> dropped = new ArrayList<>();
    List<ArmoryRewrite> inFileOrder = new ArrayList<>(reading.rewrites());
    inFileOrder.sort(Comparator.comparingInt(r -> r.origin().line()));
    for (ArmoryRewrite rewrite : inFileOrder) {
      (rewrite.kind() == ArmoryRewrite.Kind.REMOVE ? dropped : changed).add(rewrite);
    }

    List<ConfigProblem> problems = new ArrayList<>(reading.problems());
    // The result must read as SpinAgent's own: nothing left to rewrite or warn about.
    Path target = writtenAs != null ? writtenAs : input;
    ArmoryReading check = loader.readForConversion(target, yaml, new ArrayList<>());
    if (check != null && problems.isEmpty()) {
      check.rewrites().stream()
          .map(
              r ->
                  new ConfigProblem(
                      r.origin(), r.keyPath(), "still in Armory's form after conversion"))
          .forEach(problems::add);
      problems.addAll(check.problems());
    }
    return new Result(input, yaml, changed, dropped, problems);
  }
}
