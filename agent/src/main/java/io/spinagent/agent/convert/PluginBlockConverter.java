package io.spinagent.agent.convert;

import io.spinagent.agent.armory.ArmoryKey.Treatment;
import io.spinagent.agent.config.yaml.BoundedFiles;
import io.spinagent.agent.config.yaml.BoundedYaml;
import io.spinagent.agent.config.yaml.YamlOutput;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Converts the Clouddriver settings of Armory Scale Agent's plugin into SpinAgent's plugin
 * settings, by {@link ArmoryPluginKeys}. It reads what Armory's install guides write: a Clouddriver
 * profile ({@code clouddriver-local.yml} with Halyard) or an Operator {@code SpinnakerService} (its
 * {@code spec.spinnakerConfig.profiles.clouddriver}), one or more documents. Everything else in
 * them is kept as it is; {@code kubesvc.*} and the Armory plugin's entries are replaced by {@code
 * spinagent.*} and the SpinAgent plugin's.
 */
public final class PluginBlockConverter {

  /** As large as the agent's own configuration may be. */
  static final long MAX_BYTES = 16L << 20;

  private static final String KUBESVC = "kubesvc";

  /** A setting found, and what became of it. */
  public record Change(String armoryKey, Treatment treatment, String spinAgentKey, String note) {

    public String describe() {
      return armoryKey
          + ": "
          + (spinAgentKey != null ? "written as " + spinAgentKey + ": " : "dropped: ")
          + note;
    }
  }

  /**
   * The converted settings, and what the conversion found on the way.
   *
   * @param yaml the converted documents, or null when the input could not be read
   * @param changes every Armory setting found, in the order found
   * @param problems what could not be converted and needs a person
   */
  public record Result(String yaml, List<Change> changes, List<String> problems) {

    public Result {
      changes = List.copyOf(changes);
      problems = List.copyOf(problems);
    }

    public List<Change> converted() {
      return changes.stream().filter(c -> c.spinAgentKey() != null).toList();
    }

    public List<Change> dropped() {
      return changes.stream().filter(c -> c.spinAgentKey() == null).toList();
    }
  }

  public Result convert(Path input) {
    String text;
    try {
      text = BoundedFiles.readUtf8(input, MAX_BYTES, "a Clouddriver profile");
    } catch (BoundedFiles.UnreadableFileException e) {
      return failed(input + ": cannot read it: it " + e.reason());
    }
    List<Object> documents;
    try {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      options.setCodePointLimit((int) MAX_BYTES);
      documents = BoundedYaml.loadAll(new StringReader(text), options);
    } catch (YAMLException e) {
      return failed(input + ": not YAML: " + e.getMessage());
    }

    List<Change> changes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int profiles = 0;
    for (Object document : documents) {
      for (Map<String, Object> profile : profiles(document)) {
        profiles++;
        convertProfile(profile, changes, problems);
      }
    }
    if (profiles == 0 || (changes.isEmpty() && problems.isEmpty())) {
      problems.add(
          input
              + ": no settings of Armory's plugin found: expected a Clouddriver profile"
              + " (clouddriver-local.yml) with kubesvc: or spinnaker.extensibility.plugins"
              + ".Armory.Kubesvc, or a SpinnakerService with them in"
              + " spec.spinnakerConfig.profiles.clouddriver");
    }
    List<String> texts = new ArrayList<>();
    for (Object document : documents) {
      texts.add(document == null ? "" : YamlOutput.dump(document));
    }
    return new Result(String.join("---\n", texts), changes, problems);
  }

  private static Result failed(String problem) {
    return new Result(null, List.of(), List.of(problem));
  }

  /** The Clouddriver profiles in a document: the document itself, or a SpinnakerService's. */
  private static List<Map<String, Object>> profiles(Object document) {
    List<Map<String, Object>> found = new ArrayList<>();
    if (!(document instanceof Map<?, ?>)) {
      return found;
    }
    Map<String, Object> root = asMap(document);
    Object clouddriver = at(root, "spec", "spinnakerConfig", "profiles", "clouddriver");
    if (clouddriver instanceof Map<?, ?>) {
      found.add(asMap(clouddriver));
    }
    if (root.containsKey(KUBESVC)
        || root.keySet().stream().anyMatch(k -> k.startsWith(KUBESVC + "."))
        || root.containsKey("spinnaker")) {
      found.add(root);
    }
    return found;
  }

  private static Object at(Map<String, Object> map, String... keys) {
    Object current = map;
    for (String key : keys) {
      if (!(current instanceof Map<?, ?> m)) {
        return null;
      }
      current = m.get(key);
    }
    return current;
  }

  private void convertProfile(
      Map<String, Object> profile, List<Change> changes, List<String> problems) {
    Map<String, Object> written = new LinkedHashMap<>();
    List<String> order = new ArrayList<>(profile.keySet());
    int position = order.indexOf(KUBESVC);
    collect(profile, "", written, changes, problems);
    if (written.isEmpty()) {
      return;
    }
    Map<String, Object> result = new LinkedHashMap<>();
    List<String> remaining = new ArrayList<>(profile.keySet());
    // spinagent.* goes where kubesvc was, so the file reads in the same order.
    int insertAt = position < 0 ? remaining.size() : Math.min(position, remaining.size());
    for (int i = 0; i <= remaining.size(); i++) {
      if (i == insertAt) {
        written.forEach((key, value) -> merge(result, key, value));
      }
      if (i < remaining.size()) {
        merge(result, remaining.get(i), profile.get(remaining.get(i)));
      }
    }
    profile.clear();
    profile.putAll(result);
  }

  /**
   * Finds Armory's settings under {@code map} (whose keys may themselves be dotted, as Spring
   * allows), removes them, and puts what they become in {@code written}.
   */
  private void collect(
      Map<String, Object> map,
      String prefix,
      Map<String, Object> written,
      List<Change> changes,
      List<String> problems) {
    for (String key : new ArrayList<>(map.keySet())) {
      String path = prefix.isEmpty() ? key : prefix + "." + key;
      Object value = map.get(key);
      Optional<ArmoryPluginKeys.Row> row = ArmoryPluginKeys.rowFor(path);
      if (row.isPresent()) {
        map.remove(key);
        apply(row.get(), path, value, written, changes, problems);
      } else if (value instanceof Map<?, ?> child
          && (ArmoryPluginKeys.hasRowsUnder(path) || isArmorys(path))) {
        collect(asMap(child), path, written, changes, problems);
        if (child.isEmpty()) {
          map.remove(key);
        }
      } else if (isArmorys(path)) {
        map.remove(key);
        changes.add(
            new Change(
                path,
                Treatment.UNSUPPORTED,
                null,
                "not a setting of Armory's plugin reference, so there is nothing to convert it"
                    + " to"));
      }
    }
  }

  private static boolean isArmorys(String path) {
    String relaxed = ArmoryPluginKeys.relaxed(path);
    return relaxed.equals(KUBESVC)
        || relaxed.startsWith(KUBESVC + ".")
        || relaxed.startsWith(ArmoryPluginKeys.relaxed(ArmoryPluginKeys.ARMORY_PLUGIN) + ".");
  }

  private static void apply(
      ArmoryPluginKeys.Row row,
      String path,
      Object value,
      Map<String, Object> written,
      List<Change> changes,
      List<String> problems) {
    String target = row.key().spinAgentKey();
    if (row.key().treatment() != Treatment.CONVERTED || target == null) {
      changes.add(new Change(path, row.key().treatment(), null, row.key().spinAgent()));
      return;
    }
    Object converted;
    try {
      converted = row.value().apply(value);
    } catch (IllegalArgumentException | ArithmeticException e) {
      problems.add(path + ": " + e.getMessage() + "; set " + target + " by hand");
      return;
    }
    put(written, segments(target), converted);
    changes.add(new Change(path, Treatment.CONVERTED, target, row.key().spinAgent()));
  }

  /** Key segments of a target, keeping the plugin id {@code SpinAgent.Kubernetes} whole. */
  private static List<String> segments(String target) {
    String plugin = ArmoryPluginKeys.SPINAGENT_PLUGIN;
    if (target.startsWith(plugin + ".")) {
      List<String> segments = new ArrayList<>(List.of("spinnaker", "extensibility", "plugins"));
      segments.add("SpinAgent.Kubernetes");
      segments.addAll(List.of(target.substring(plugin.length() + 1).split("\\.")));
      return segments;
    }
    return List.of(target.split("\\."));
  }

  private static void put(Map<String, Object> map, List<String> segments, Object value) {
    Map<String, Object> current = map;
    for (int i = 0; i < segments.size() - 1; i++) {
      Object child = current.computeIfAbsent(segments.get(i), k -> new LinkedHashMap<>());
      current = asMap(child);
    }
    current.put(segments.get(segments.size() - 1), value);
  }

  /** Puts {@code value} under {@code key}, merging maps with what is there. */
  private static void merge(Map<String, Object> map, String key, Object value) {
    Object existing = map.get(key);
    if (existing instanceof Map<?, ?> existingMap && value instanceof Map<?, ?> valueMap) {
      Map<String, Object> target = asMap(existingMap);
      asMap(valueMap).forEach((k, v) -> merge(target, k, v));
    } else {
      map.put(key, value);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object value) {
    return (Map<String, Object>) value;
  }
}
