package io.spinagent.agent.config.binding;

import io.spinagent.agent.armory.ArmoryAgentKeys;
import io.spinagent.agent.armory.ArmoryRewrite;
import io.spinagent.agent.config.yaml.ByteSizes;
import io.spinagent.agent.config.yaml.ConfigNode;
import io.spinagent.agent.config.yaml.ConfigNode.Entry;
import io.spinagent.agent.config.yaml.ConfigNode.ListNode;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarKind;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarNode;
import io.spinagent.agent.config.yaml.Origin;
import io.spinagent.agent.config.yaml.Problems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads typed values out of one YAML map, reporting every value of the wrong type or out of range
 * to {@link Problems} under its full key path and falling back to the default, so that binding
 * always completes and all problems are found in one pass.
 *
 * <p>It also remembers which keys it was asked for: those are the known keys, and {@link #finish()}
 * reports every other key as unknown. The schema is thereby defined once, by the binding code, and
 * a typo can never be silently ignored. Keys of Armory Scale Agent's that SpinAgent does not apply
 * are the exception: {@link #finish()} looks them up in {@link ArmoryAgentKeys} and warns instead.
 *
 * <p>String values may be secret references ({@link SecretReferences}); they are resolved here, so
 * binding code only ever sees values.
 *
 * <p>A little over 500 lines: one reader for every kind of value keeps the bookkeeping of known
 * keys and key paths in one place.
 */
final class MapReader {

  private final MapNode map;
  private final String path;
  private final List<Object> segments;
  private final Binding binding;
  private final Problems problems;
  private final Set<String> known = new LinkedHashSet<>();

  /**
   * Keys only Armory Scale Agent has that the binding code reads (its spellings of known keys, and
   * forms it converts); never offered as known keys.
   */
  private final Set<String> armoryKeys = new LinkedHashSet<>();

  /** The root of a configuration file. */
  MapReader(MapNode map, Binding binding) {
    this(map, "", List.of(), binding);
  }

  private MapReader(MapNode map, String path, List<Object> segments, Binding binding) {
    this.map = map;
    this.path = path;
    this.segments = List.copyOf(segments);
    this.binding = binding;
    this.problems = binding.problems;
  }

  String pathOf(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** Where the key's value was written or, for a key not set, where this map is. */
  Origin originOf(String key) {
    Entry entry = map.entries().get(key);
    return entry != null ? entry.value().origin() : map.origin();
  }

  /** Reports a problem with the value of {@code key} (or with its absence). */
  void problem(String key, String message) {
    problems.add(originOf(key), pathOf(key), message);
  }

  /** Warns about the value of {@code key} (or its absence); the configuration stays usable. */
  void warn(String key, String message) {
    problems.warn(originOf(key), pathOf(key), message);
  }

  /**
   * Declares {@code key} as one of Armory Scale Agent's that the binding code reads and converts.
   */
  void armoryKey(String key) {
    armoryKeys.add(key);
  }

  /**
   * Reads {@code key} under Armory's spelling when that is the one written: returns the spelling to
   * read, and records the rename for the converter. Both spellings at once is a problem.
   */
  String spelling(String key, String armorySpelling) {
    armoryKeys.add(armorySpelling);
    Entry armory = map.entries().get(armorySpelling);
    if (armory == null) {
      return key;
    }
    if (map.entries().containsKey(key)) {
      problems.add(
          armory.keyOrigin(),
          pathOf(armorySpelling),
          "is Armory Scale Agent's spelling of "
              + key
              + ", which is set too (at "
              + originOf(key).describe()
              + "); remove one of them");
      return key;
    }
    binding.rewrite(
        new ArmoryRewrite(
            segmentsOf(armorySpelling),
            ArmoryRewrite.Kind.RENAME,
            key,
            pathOf(armorySpelling),
            armory.keyOrigin(),
            "renamed to " + key + " (Armory Scale Agent's spelling)"));
    known.add(key);
    return armorySpelling;
  }

  /** Records that the converter writes {@code value} (plain YAML data) for {@code key}. */
  void rewriteValue(String key, Object value, String reason) {
    binding.rewrite(
        new ArmoryRewrite(
            segmentsOf(key),
            ArmoryRewrite.Kind.REPLACE,
            value,
            pathOf(key),
            originOf(key),
            reason));
  }

  /** Records that the converter drops {@code key}. */
  void rewriteRemove(String key, String reason) {
    binding.rewrite(
        new ArmoryRewrite(
            segmentsOf(key), ArmoryRewrite.Kind.REMOVE, null, pathOf(key), originOf(key), reason));
  }

  /** True if {@code key} has a non-null value. Marks the key as known. */
  boolean isSet(String key) {
    return node(key) != null;
  }

  /** The key's value, or null when it is absent or explicitly null. Marks the key as known. */
  ConfigNode node(String key) {
    if (!armoryKeys.contains(key)) {
      known.add(key);
    }
    Entry entry = map.entries().get(key);
    if (entry == null || (entry.value() instanceof ScalarNode s && s.kind() == ScalarKind.NULL)) {
      return null;
    }
    return entry.value();
  }

  /**
   * A non-empty string, or empty. Numbers and booleans are taken as written: {@code name: 123}. A
   * secret reference ({@code encrypted:env!n:NAME}, {@code encrypted:file!f:path}) is replaced by
   * the secret.
   */
  Optional<String> string(String key) {
    Optional<String> text = text(key);
    if (text.isEmpty() || !SecretReferences.isReference(text.get())) {
      return text;
    }
    try {
      return Optional.of(binding.secrets.value(text.get(), directoryOf(key)));
    } catch (SecretReferences.ReferenceException e) {
      problem(key, e.getMessage());
      return Optional.empty();
    }
  }

  /** The string as written: not empty, never a resolved secret. */
  private Optional<String> text(String key) {
    ScalarNode scalar = scalar(key, "a string");
    if (scalar == null) {
      return Optional.empty();
    }
    if (scalar.text().isBlank()) {
      problem(key, "must not be empty; remove the key to use the default");
      return Optional.empty();
    }
    return Optional.of(scalar.text());
  }

  /**
   * A file path; relative paths are resolved against the directory of the file that set them. A
   * secret reference to a file ({@code encryptedFile:file!f:path}) names that file.
   */
  Optional<Path> path(String key) {
    Optional<String> text = text(key);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    if (SecretReferences.isReference(text.get())) {
      try {
        text = Optional.of(binding.secrets.file(text.get()));
      } catch (SecretReferences.ReferenceException e) {
        problem(key, e.getMessage());
        return Optional.empty();
      }
    }
    try {
      Path written = Path.of(text.get());
      if (written.isAbsolute()) {
        return Optional.of(written);
      }
      return Optional.of(directoryOf(key).resolve(written).normalize());
    } catch (InvalidPathException e) {
      problem(key, "is not a valid file path: " + e.getReason());
      return Optional.empty();
    }
  }

  /**
   * {@code true} or {@code false}; YAML's {@code yes}/{@code no}/{@code on}/{@code off} too, and
   * the quoted strings {@code "true"} and {@code "false"}, which templating tools often produce.
   */
  boolean bool(String key, boolean defaultValue) {
    ScalarNode scalar = scalar(key, "true or false");
    if (scalar == null) {
      return defaultValue;
    }
    String text = scalar.text().toLowerCase(Locale.ROOT);
    if (scalar.kind() == ScalarKind.BOOLEAN) {
      return text.equals("true") || text.equals("yes") || text.equals("on");
    }
    if (text.equals("true") || text.equals("false")) {
      return text.equals("true");
    }
    problem(key, "expected true or false, got " + scalar.description());
    return defaultValue;
  }

  /** A boolean when {@code key} is set; empty when it is not (or is null). */
  Optional<Boolean> optionalBool(String key) {
    return isSet(key) ? Optional.of(bool(key, false)) : Optional.empty();
  }

  int integer(String key, int defaultValue, int min, int max) {
    return (int) longInteger(key, defaultValue, min, max);
  }

  long longInteger(String key, long defaultValue, long min, long max) {
    ScalarNode scalar = scalar(key, "a whole number");
    if (scalar == null) {
      return defaultValue;
    }
    long value;
    try {
      if (scalar.kind() != ScalarKind.INTEGER && scalar.kind() != ScalarKind.STRING) {
        throw new NumberFormatException();
      }
      // YAML allows 1_000 for readability; Java's parser does not.
      value = Long.parseLong(scalar.text().trim().replace("_", ""));
    } catch (NumberFormatException e) {
      problem(key, "expected a whole number, got " + scalar.description());
      return defaultValue;
    }
    if (value < min || value > max) {
      boolean unbounded = max == Long.MAX_VALUE || max == Integer.MAX_VALUE;
      problem(
          key,
          rangeMessage(Long.toString(value), Long.toString(min), Long.toString(max), unbounded));
      return defaultValue;
    }
    return value;
  }

  double decimal(String key, double defaultValue, double min, double max) {
    ScalarNode scalar = scalar(key, "a number");
    if (scalar == null) {
      return defaultValue;
    }
    double value;
    try {
      if (scalar.kind() == ScalarKind.BOOLEAN || scalar.kind() == ScalarKind.NULL) {
        throw new NumberFormatException();
      }
      value = Double.parseDouble(scalar.text().trim().replace("_", ""));
      if (!Double.isFinite(value)) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      problem(key, "expected a number, got " + scalar.description());
      return defaultValue;
    }
    if (value < min || value > max) {
      problem(key, rangeMessage(scalar.text(), plain(min), plain(max), false));
      return defaultValue;
    }
    return value;
  }

  /** A positive duration such as {@code 500ms} or {@code 2m}; see {@link Durations}. */
  Duration duration(String key, Duration defaultValue) {
    ScalarNode scalar = scalar(key, Durations.SYNTAX);
    if (scalar == null) {
      return defaultValue;
    }
    try {
      Duration value = Durations.parse(scalar.text());
      if (value.isZero()) {
        problem(key, "must be longer than 0");
        return defaultValue;
      }
      return value;
    } catch (IllegalArgumentException e) {
      problem(key, e.getMessage());
      return defaultValue;
    }
  }

  /**
   * A positive duration as {@link #duration} reads it, or a whole number of nanoseconds, the form
   * Armory Scale Agent's backoff settings take (Go's {@code time.Duration}); the converter writes
   * such a number as a duration. Fewer than a million nanoseconds (one millisecond) is refused:
   * such a number was almost certainly meant in another unit.
   */
  Duration durationOrNanoseconds(String key, Duration defaultValue) {
    ConfigNode node = node(key);
    if (!(node instanceof ScalarNode scalar)
        || scalar.kind() != ScalarKind.INTEGER
        || !scalar.text().trim().matches("\\d[\\d_]*")) {
      return duration(key, defaultValue);
    }
    long nanos;
    try {
      nanos = Long.parseLong(scalar.text().trim().replace("_", ""));
    } catch (NumberFormatException e) {
      problem(key, "'" + scalar.text() + "' is too large for a number of nanoseconds");
      return defaultValue;
    }
    if (nanos < 1_000_000) {
      problem(
          key,
          "'"
              + scalar.text()
              + "' is a bare number, which is read as nanoseconds, as Armory Scale Agent does ("
              + Durations.format(Duration.ofNanos(nanos))
              + "); write a duration with its unit instead, e.g. "
              + scalar.text().trim()
              + "s or "
              + scalar.text().trim()
              + "ms");
      return defaultValue;
    }
    Duration value = Duration.ofNanos(nanos);
    rewriteValue(
        key,
        Durations.format(value),
        "nanoseconds (Armory Scale Agent's form) written as a duration");
    return value;
  }

  /** A size in bytes such as {@code 64Mi}; see {@link ByteSizes}. */
  long byteSize(String key, long defaultValue, long min) {
    ScalarNode scalar = scalar(key, ByteSizes.SYNTAX);
    if (scalar == null) {
      return defaultValue;
    }
    try {
      long value = ByteSizes.parse(scalar.text());
      if (value < min) {
        problem(key, "must be at least " + ByteSizes.format(min) + ", got '" + scalar.text() + "'");
        return defaultValue;
      }
      return value;
    } catch (IllegalArgumentException e) {
      problem(key, e.getMessage());
      return defaultValue;
    }
  }

  /** One of the enum's constants, written in any case; messages list them in lower case. */
  <E extends Enum<E>> E choice(String key, Class<E> type, E defaultValue) {
    List<String> names =
        Arrays.stream(type.getEnumConstants())
            .map(c -> c.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.toList());
    ScalarNode scalar = scalar(key, "one of " + String.join(", ", names));
    if (scalar == null) {
      return defaultValue;
    }
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equalsIgnoreCase(scalar.text().trim())) {
        return constant;
      }
    }
    problem(key, "expected one of " + String.join(", ", names) + ", got " + scalar.description());
    return defaultValue;
  }

  /**
   * A list of non-empty strings; empty when the key is not set. {@code checkItem} returns what is
   * wrong with an item, or null when it is fine; each bad item is reported under its own index.
   */
  List<String> stringList(String key, Function<String, String> checkItem) {
    ConfigNode node = node(key);
    if (node == null) {
      return List.of();
    }
    if (!(node instanceof ListNode list)) {
      String example = node instanceof ScalarNode s ? ", e.g. [" + s.text() + "]" : "";
      problem(key, "expected a list" + example + ", got " + node.description());
      return List.of();
    }
    List<String> values = new ArrayList<>();
    for (int i = 0; i < list.items().size(); i++) {
      ConfigNode item = list.items().get(i);
      String itemPath = pathOf(key) + "[" + i + "]";
      if (!(item instanceof ScalarNode scalar)
          || scalar.kind() == ScalarKind.NULL
          || scalar.text().isBlank()) {
        problems.add(
            item.origin(), itemPath, "expected a non-empty string, got " + item.description());
        continue;
      }
      String problem = checkItem.apply(scalar.text());
      if (problem != null) {
        problems.add(item.origin(), itemPath, problem);
        continue;
      }
      values.add(scalar.text());
    }
    return values;
  }

  /**
   * Binds the map under {@code key} with {@code binder}, then reports its unknown keys. A key that
   * is not set binds as an empty map, which gives every nested key its default.
   */
  <T> T section(String key, Function<MapReader, T> binder) {
    ConfigNode node = node(key);
    MapNode child;
    if (node instanceof MapNode m) {
      child = m;
    } else {
      if (node != null) {
        // A single value where a map belongs is not echoed: under "auth" it may well be the token.
        String got = node instanceof ScalarNode ? "a single value" : node.description();
        problem(key, "expected a map of keys, got " + got);
      }
      child = MapNode.empty(originOf(key));
    }
    MapReader reader = new MapReader(child, pathOf(key), segmentsOf(key), binding);
    T result = binder.apply(reader);
    reader.finish();
    return result;
  }

  /**
   * Binds each map in the list under {@code key} with {@code binder}, which also receives the
   * item's index. Items that are not maps are reported and skipped. {@code itemName} names one item
   * in messages, e.g. "account".
   */
  <T> List<T> mapList(String key, String itemName, BiFunction<MapReader, Integer, T> binder) {
    ConfigNode node = node(key);
    if (node == null) {
      return List.of();
    }
    if (!(node instanceof ListNode list)) {
      problem(key, "expected a list of " + itemName + "s, got " + node.description());
      return List.of();
    }
    List<T> results = new ArrayList<>();
    for (int i = 0; i < list.items().size(); i++) {
      ConfigNode item = list.items().get(i);
      String itemPath = pathOf(key) + "[" + i + "]";
      if (!(item instanceof MapNode itemMap)) {
        problems.add(
            item.origin(),
            itemPath,
            "expected " + itemName + " settings (a map of keys), got " + item.description());
        continue;
      }
      List<Object> itemSegments = new ArrayList<>(segmentsOf(key));
      itemSegments.add(i);
      MapReader reader = new MapReader(itemMap, itemPath, itemSegments, binding);
      T result = binder.apply(reader, i);
      reader.finish();
      if (result != null) {
        results.add(result);
      }
    }
    return results;
  }

  /**
   * Reports every key of this map that no binding code asked for, except Armory Scale Agent's keys
   * that SpinAgent does not apply: those are warned about as {@link ArmoryAgentKeys} says.
   */
  void finish() {
    new LeftoverKeys(binding).check(map, path, segments, known, armoryKeys);
  }

  private List<Object> segmentsOf(String key) {
    List<Object> result = new ArrayList<>(segments);
    result.add(key);
    return result;
  }

  /** The directory of the file that set {@code key}, where its relative paths are resolved. */
  private Path directoryOf(String key) {
    Path file = originOf(key).file().toAbsolutePath();
    return Objects.requireNonNullElse(file.getParent(), file);
  }

  /** The key's value if it is a scalar; otherwise reports that {@code expected} was expected. */
  private ScalarNode scalar(String key, String expected) {
    ConfigNode node = node(key);
    if (node == null) {
      return null;
    }
    if (node instanceof ScalarNode scalar) {
      return scalar;
    }
    problem(key, "expected " + expected + ", got " + node.description());
    return null;
  }

  private static String rangeMessage(String value, String min, String max, boolean unbounded) {
    return unbounded
        ? "must be at least " + min + ", got " + value
        : "must be between " + min + " and " + max + ", got " + value;
  }

  private static String plain(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
