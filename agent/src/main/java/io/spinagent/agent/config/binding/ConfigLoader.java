package io.spinagent.agent.config.binding;

import io.spinagent.agent.armory.ArmoryReading;
import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.ConfigProblem;
import io.spinagent.agent.config.yaml.Origin;
import io.spinagent.agent.config.yaml.PlainYaml;
import io.spinagent.agent.config.yaml.Problems;
import io.spinagent.agent.config.yaml.YamlFileReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Loads the agent configuration: reads the file given with {@code --config}, deep-merges its {@code
 * -local} overlay over it when that exists (see {@link #overlayFor}), applies defaults and checks
 * every rule. Never throws for a bad configuration: it returns all problems at once.
 */
public final class ConfigLoader {

  /** The names Armory Scale Agent's configuration files have (before 0.6.0: kubesvc). */
  static final Set<String> ARMORY_FILE_NAMES =
      Set.of(
          "armory-agent.yml",
          "armory-agent.yaml",
          "armory-agent-local.yml",
          "armory-agent-local.yaml",
          "kubesvc.yml",
          "kubesvc.yaml",
          "kubesvc-local.yml",
          "kubesvc-local.yaml");

  private final Supplier<String> hostname;
  private final Function<String, String> environment;
  private final YamlFileReader reader = new YamlFileReader();

  /** Uses the local host name as the default {@code agent.id}. */
  public ConfigLoader() {
    this(LocalHostname::get);
  }

  /**
   * @param hostname the default {@code agent.id}, replaceable so tests do not depend on the host
   */
  public ConfigLoader(Supplier<String> hostname) {
    this(hostname, System::getenv);
  }

  /**
   * @param environment where {@code encrypted:env!n:NAME} references are looked up
   */
  public ConfigLoader(Supplier<String> hostname, Function<String, String> environment) {
    this.hostname = Objects.requireNonNull(hostname, "hostname");
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  public ConfigLoadResult load(Path configFile) {
    Problems problems = new Problems();
    MapNode root = reader.read(configFile, problems);
    if (root == null) {
      return new ConfigLoadResult.Invalid(problems.asList(), List.of(configFile));
    }

    List<Path> files = List.of(configFile);
    Path overlayFile = overlayFor(configFile);
    // Files.exists follows symbolic links, so a ConfigMap key mounted through ..data links counts.
    if (Files.exists(overlayFile)) {
      files = List.of(configFile, overlayFile);
      MapNode overlay = reader.read(overlayFile, problems);
      if (overlay == null) {
        return new ConfigLoadResult.Invalid(problems.asList(), files);
      }
      root = ConfigOverlay.merge(root, overlay);
    }

    Binding binding = new Binding(problems, new SecretReferences(environment, true));
    AgentConfig config =
        new ConfigBinder(hostname).bind(root, binding, isArmoryFileName(configFile), false);
    List<ConfigProblem> warnings = warnings(problems, files);
    return problems.isEmpty()
        ? new ConfigLoadResult.Loaded(config, files, warnings)
        : new ConfigLoadResult.Invalid(
            inFileOrder(problems.asList(), 0, "problems", files),
            files,
            warnings,
            problems.omittedProblems());
  }

  /**
   * Reads one file as {@code convert-armory} does: on its own (an overlay is converted as a file of
   * its own), with secret references checked but not resolved.
   *
   * @return null when the file cannot be read or is not YAML; the reason is in {@code problems}
   */
  public ArmoryReading readForConversion(Path file, List<ConfigProblem> unreadable) {
    Problems problems = new Problems();
    return readForConversion(file, reader.read(file, problems), problems, unreadable);
  }

  /**
   * Reads {@code text} as {@link #readForConversion(Path, List)} reads a file, as if it were at
   * {@code file}: how the converter checks what it is about to write.
   */
  public ArmoryReading readForConversion(Path file, String text, List<ConfigProblem> unreadable) {
    Problems problems = new Problems();
    return readForConversion(file, reader.parse(file, text, problems), problems, unreadable);
  }

  private ArmoryReading readForConversion(
      Path file, MapNode root, Problems problems, List<ConfigProblem> unreadable) {
    if (root == null) {
      unreadable.addAll(problems.asList());
      return null;
    }
    Binding binding = new Binding(problems, new SecretReferences(environment, false));
    new ConfigBinder(hostname).bind(root, binding, isArmoryFileName(file), isOverlay(file));
    List<Path> files = List.of(file);
    @SuppressWarnings("unchecked")
    Map<String, Object> tree = (Map<String, Object>) PlainYaml.of(root);
    return new ArmoryReading(
        file, tree, binding.rewrites(), problems(problems, files), warnings(problems, files));
  }

  private static List<ConfigProblem> problems(Problems problems, List<Path> files) {
    return inFileOrder(problems.asList(), problems.omittedProblems(), "problems", files);
  }

  private static List<ConfigProblem> warnings(Problems problems, List<Path> files) {
    return inFileOrder(problems.warnings(), problems.omittedWarnings(), "warnings", files);
  }

  /**
   * Main file before overlay, then by line: the order in which an operator reads and fixes them.
   * Those not kept are counted at the end.
   */
  private static List<ConfigProblem> inFileOrder(
      List<ConfigProblem> kept, int omitted, String what, List<Path> files) {
    List<ConfigProblem> sorted =
        new ArrayList<>(
            kept.stream()
                .sorted(
                    Comparator.<ConfigProblem>comparingInt(p -> files.indexOf(p.origin().file()))
                        .thenComparingInt(p -> p.origin().line()))
                .toList());
    if (omitted > 0) {
      sorted.add(
          new ConfigProblem(
              Origin.of(files.get(0)),
              null,
              "and "
                  + omitted
                  + " more "
                  + what
                  + ", not listed (only the first "
                  + Problems.MAX_KEPT
                  + " found are)"));
    }
    return sorted;
  }

  /**
   * The overlay of a configuration file: the sibling with {@code -local} before the extension, e.g.
   * {@code spinagent-local.yaml} for {@code spinagent.yaml}. A base configuration can then be
   * shipped in one ConfigMap and amended per cluster by another, as Armory Scale Agent users do
   * with {@code armory-agent-local.yaml}.
   */
  public static Path overlayFor(Path configFile) {
    String name = configFile.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String overlayName =
        dot > 0 ? name.substring(0, dot) + "-local" + name.substring(dot) : name + "-local";
    return configFile.resolveSibling(overlayName);
  }

  /** Whether {@code file} is named like an overlay ({@code <name>-local.<ext>}). */
  static boolean isOverlay(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return (dot > 0 ? name.substring(0, dot) : name).endsWith("-local");
  }

  static boolean isArmoryFileName(Path file) {
    return ARMORY_FILE_NAMES.contains(file.getFileName().toString());
  }
}
