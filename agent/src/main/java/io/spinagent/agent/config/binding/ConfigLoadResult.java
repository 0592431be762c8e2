package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.yaml.ConfigProblem;
import io.spinagent.agent.config.yaml.Problems;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** What {@link ConfigLoader#load} found: a usable configuration, or everything wrong with it. */
public sealed interface ConfigLoadResult permits ConfigLoadResult.Loaded, ConfigLoadResult.Invalid {

  /** The files read, main file first, then the overlay if there was one. */
  List<Path> files();

  /**
   * Settings the agent reads but applies differently than written, mostly Armory Scale Agent's
   * (each names the key, what it meant there and what SpinAgent does), in file order.
   */
  List<ConfigProblem> warnings();

  /** The configuration is valid. */
  record Loaded(AgentConfig config, List<Path> files, List<ConfigProblem> warnings)
      implements ConfigLoadResult {

    public Loaded {
      Objects.requireNonNull(config, "config");
      files = List.copyOf(files);
      warnings = List.copyOf(warnings);
    }
  }

  /**
   * The configuration cannot be used; {@code problems} lists the problems found, in file order, up
   * to {@link Problems#MAX_KEPT}.
   *
   * @param unlisted problems found beyond those listed, only counted
   */
  record Invalid(
      List<ConfigProblem> problems, List<Path> files, List<ConfigProblem> warnings, int unlisted)
      implements ConfigLoadResult {

    public Invalid {
      problems = List.copyOf(problems);
      files = List.copyOf(files);
      warnings = List.copyOf(warnings);
      if (problems.isEmpty()) {
        throw new IllegalArgumentException("an invalid configuration has at least one problem");
      }
    }

    /** Every problem listed. */
    public Invalid(List<ConfigProblem> problems, List<Path> files, List<ConfigProblem> warnings) {
      this(problems, files, warnings, 0);
    }

    /** Every problem listed, without warnings. */
    public Invalid(List<ConfigProblem> problems, List<Path> files) {
      this(problems, files, List.of());
    }

    /**
     * One message for the operator: which files were read, then one line per problem, each naming
     * the file and line of the offending value and its key path.
     */
    public String report() {
      String sources =
          files.get(0) + (files.size() > 1 ? " (with overlay " + files.get(1) + ")" : "");
      int total = problems.size() + unlisted;
      String count = total == 1 ? "1 problem" : total + " problems";
      return "invalid configuration "
          + sources
          + ", "
          + count
          + ":"
          + System.lineSeparator()
          + problems.stream()
              .map(p -> "  " + p.describe())
              .collect(Collectors.joining(System.lineSeparator()))
          + (unlisted == 0
              ? ""
              : System.lineSeparator()
                  + "  and "
                  + unlisted
                  + " more, not listed (only the first "
                  + problems.size()
                  + " found are)");
    }
  }
}
