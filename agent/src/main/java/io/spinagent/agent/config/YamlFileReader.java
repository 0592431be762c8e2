package io.spinagent.agent.config;

import io.spinagent.agent.config.ConfigNode.Entry;
import io.spinagent.agent.config.ConfigNode.ListNode;
import io.spinagent.agent.config.ConfigNode.MapNode;
import io.spinagent.agent.config.ConfigNode.ScalarKind;
import io.spinagent.agent.config.ConfigNode.ScalarNode;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads one configuration file into a {@link ConfigNode} tree.
 *
 * <p>SnakeYAML is used only to compose its node graph; no Java object is ever constructed from the
 * document, so tags such as {@code !!java.lang.ProcessBuilder} cannot instantiate anything. They
 * are reported as problems like any other unsupported tag.
 */
final class YamlFileReader {

  /**
   * Room for thousands of accounts (a few hundred bytes each), small enough that pointing {@code
   * --config} at the wrong file cannot fill the heap.
   */
  static final long MAX_BYTES = 16L << 20;

  /**
   * Reads {@code file}. Returns null when the file cannot be read or is not YAML at all; the reason
   * is then in {@code problems}. Structural problems inside a readable document (unsupported tags,
   * duplicate keys) are reported too, and the offending entries left out of the returned tree.
   */
  MapNode read(Path file, Problems problems) {
    Origin wholeFile = Origin.of(file);
    String text;
    try {
      if (Files.isRegularFile(file) && Files.size(file) > MAX_BYTES) {
        problems.add(
            wholeFile,
            null,
            "cannot read configuration file: it is larger than " + ByteSizes.format(MAX_BYTES));
        return null;
      }
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      problems.add(wholeFile, null, "cannot read configuration file: it does not exist");
      return null;
    } catch (AccessDeniedException e) {
      problems.add(wholeFile, null, "cannot read configuration file: permission denied");
      return null;
    } catch (CharacterCodingException e) {
      problems.add(wholeFile, null, "cannot read configuration file: it is not UTF-8 text");
      return null;
    } catch (IOException e) {
      String reason =
          Files.isDirectory(file) ? "it is a directory" : String.valueOf(e.getMessage());
      problems.add(wholeFile, null, "cannot read configuration file: " + reason);
      return null;
    }
    return parse(file, text, problems);
  }

  /**
   * Reads {@code text} as if it were the content of {@code file} (where relative paths in it are
   * resolved), e.g. a file the converter is about to write.
   */
  MapNode parse(Path file, String text, Problems problems) {
    Origin wholeFile = Origin.of(file);
    Node root;
    try {
      root = newYaml().compose(new StringReader(text));
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      Origin at = mark == null ? wholeFile : new Origin(file, mark.getLine() + 1);
      String column = mark == null ? "" : " (column " + (mark.getColumn() + 1) + ")";
      String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
      problems.add(at, null, "invalid YAML: " + problem + column);
      return null;
    } catch (YAMLException e) {
      problems.add(wholeFile, null, "invalid YAML: " + e.getMessage());
      return null;
    }

    if (root == null || isNull(root)) {
      // An empty file is a valid configuration: every key takes its default.
      return MapNode.empty(wholeFile);
    }
    if (!(root instanceof MappingNode)) {
      problems.add(
          originOf(file, root),
          null,
          "the configuration must be a YAML map of keys such as 'clouddriver' and 'kubernetes'");
      return null;
    }
    ConfigNode converted = new Converter(file, problems).convert(root, "");
    return converted instanceof MapNode map ? map : MapNode.empty(wholeFile);
  }

  private static Yaml newYaml() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit((int) MAX_BYTES);
    options.setAllowRecursiveKeys(false);
    options.setProcessComments(false);
    // SafeConstructor only matters if someone later calls load() on this instance; compose() never
    // constructs objects at all.
    return new Yaml(new SafeConstructor(options));
  }

  private static boolean isNull(Node node) {
    return node instanceof org.yaml.snakeyaml.nodes.ScalarNode && Tag.NULL.equals(node.getTag());
  }

  private static Origin originOf(Path file, Node node) {
    return new Origin(file, node.getStartMark().getLine() + 1);
  }

  /** Turns SnakeYAML's node graph into our tree, one file at a time. */
  private static final class Converter {

    private final Path file;
    private final Problems problems;

    /** Nodes on the current path: an alias pointing back up the tree would otherwise never end. */
    private final Set<Node> ancestors = Collections.newSetFromMap(new IdentityHashMap<>());

    Converter(Path file, Problems problems) {
      this.file = file;
      this.problems = problems;
    }

    /**
     * Converts {@code node}, found at key path {@code path} ("" for the root). Returns null for a
     * node that was reported as a problem and must be left out.
     */
    ConfigNode convert(Node node, String path) {
      Origin origin = originOf(file, node);
      if (!ancestors.add(node)) {
        problems.add(
            origin,
            keyPathOrNull(path),
            "invalid YAML: an alias refers to a value that contains it");
        return null;
      }
      try {
        if (node instanceof MappingNode mapping) {
          return convertMap(mapping, origin, path);
        }
        if (node instanceof SequenceNode sequence) {
          return convertList(sequence, origin, path);
        }
        return convertScalar((org.yaml.snakeyaml.nodes.ScalarNode) node, origin, path);
      } finally {
        ancestors.remove(node);
      }
    }

    private ConfigNode convertMap(MappingNode mapping, Origin origin, String path) {
      if (!Tag.MAP.equals(mapping.getTag())) {
        return unsupportedTag(mapping, origin, path);
      }
      Map<String, Entry> entries = new LinkedHashMap<>();
      for (NodeTuple tuple : mapping.getValue()) {
        Node keyNode = tuple.getKeyNode();
        Origin keyOrigin = originOf(file, keyNode);
        if (Tag.MERGE.equals(keyNode.getTag())) {
          problems.add(
              keyOrigin,
              keyPathOrNull(path),
              "YAML merge keys (<<) are not supported; write the keys out, or use the -local"
                  + " overlay file");
          continue;
        }
        if (!(keyNode instanceof org.yaml.snakeyaml.nodes.ScalarNode keyScalar)) {
          problems.add(
              keyOrigin,
              keyPathOrNull(path),
              "invalid YAML: a map key must be a plain name, not a map or a list");
          continue;
        }
        String key = keyScalar.getValue();
        String keyPath = path.isEmpty() ? key : path + "." + key;
        Entry previous = entries.get(key);
        if (previous != null) {
          problems.add(
              keyOrigin,
              keyPath,
              "duplicate key '"
                  + key
                  + "' (already set at line "
                  + previous.keyOrigin().line()
                  + ")");
          continue;
        }
        ConfigNode value = convert(tuple.getValueNode(), keyPath);
        if (value != null) {
          entries.put(key, new Entry(keyOrigin, value));
        }
      }
      return new MapNode(origin, entries);
    }

    private ConfigNode convertList(SequenceNode sequence, Origin origin, String path) {
      if (!Tag.SEQ.equals(sequence.getTag())) {
        return unsupportedTag(sequence, origin, path);
      }
      List<ConfigNode> items = new ArrayList<>();
      for (Node item : sequence.getValue()) {
        ConfigNode value = convert(item, path + "[" + items.size() + "]");
        // Keep list positions stable for key paths such as accounts[2]: stand in a null.
        items.add(
            value != null ? value : new ScalarNode(originOf(file, item), "", ScalarKind.NULL));
      }
      return new ListNode(origin, items);
    }

    private ConfigNode convertScalar(
        org.yaml.snakeyaml.nodes.ScalarNode scalar, Origin origin, String path) {
      Tag tag = scalar.getTag();
      ScalarKind kind;
      if (Tag.STR.equals(tag) || Tag.TIMESTAMP.equals(tag)) {
        // A date-like value is only ever useful to us as text.
        kind = ScalarKind.STRING;
      } else if (Tag.INT.equals(tag)) {
        kind = ScalarKind.INTEGER;
      } else if (Tag.FLOAT.equals(tag)) {
        kind = ScalarKind.FLOAT;
      } else if (Tag.BOOL.equals(tag)) {
        kind = ScalarKind.BOOLEAN;
      } else if (Tag.NULL.equals(tag)) {
        kind = ScalarKind.NULL;
      } else {
        return unsupportedTag(scalar, origin, path);
      }
      return new ScalarNode(origin, scalar.getValue(), kind);
    }

    private ConfigNode unsupportedTag(Node node, Origin origin, String path) {
      problems.add(
          origin,
          keyPathOrNull(path),
          "unsupported YAML tag '"
              + node.getTag().getValue()
              + "'; the configuration only uses plain maps, lists, strings, numbers and booleans");
      return null;
    }

    private static String keyPathOrNull(String path) {
      return path.isEmpty() ? null : path;
    }
  }
}
