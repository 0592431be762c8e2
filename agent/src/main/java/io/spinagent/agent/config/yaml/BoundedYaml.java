package io.spinagent.agent.config.yaml;

import java.io.Reader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Loads plain YAML data (maps, lists, strings, numbers, booleans) with SnakeYAML's safe
 * constructor, bounding what the document expands to. SnakeYAML limits how many aliases a document
 * has (50 to collections), not what they stand for: 48 aliases, each a list of two of the one
 * before, stand for 2^24 values in a file of 2 KB, and whoever walks the result runs out of memory.
 * Here each document is composed first, and refused when its nodes, every alias counted as the
 * nodes it stands for, are more than {@link #MAX_NODES}; only then are its objects built.
 *
 * <p>The agent's own configuration is read by {@link YamlFileReader}, with the same limit; this
 * class is for the other YAML the agent reads: kubeconfigs and the Clouddriver profiles {@code
 * convert-armory --plugin} converts.
 */
public final class BoundedYaml {

  /**
   * Nodes (maps, lists, map keys and values) one YAML file may expand to, aliases counted as what
   * they stand for: room for tens of thousands of accounts, little enough that the agent reading
   * them fits in a small heap. See docs/agent-configuration.md.
   */
  public static final int MAX_NODES = 1_000_000;

  private BoundedYaml() {}

  /** The message of a document past {@link #MAX_NODES}; {@code aliases} when they are the cause. */
  static String tooManyNodes(boolean aliases) {
    return (aliases ? "aliases expand to more than " : "it has more than ")
        + MAX_NODES
        + " nodes (maps, lists, keys and values), the limit for a YAML file the agent reads";
  }

  /**
   * The one document in {@code yaml} (null for an empty one).
   *
   * @throws YAMLException when it is not YAML, has more than one document, an alias contains
   *     itself, or it expands to more than {@link #MAX_NODES}
   */
  public static Object load(Reader yaml, LoaderOptions options) {
    Constructor constructor = new Constructor(options);
    Node node = new Yaml(constructor).compose(yaml);
    if (node == null) {
      return null;
    }
    new Expansion().add(node);
    return constructor.construct(node);
  }

  /**
   * Every document in {@code yaml}, bounded together.
   *
   * @throws YAMLException as {@link #load}
   */
  public static List<Object> loadAll(Reader yaml, LoaderOptions options) {
    Constructor constructor = new Constructor(options);
    Expansion expansion = new Expansion();
    List<Object> documents = new ArrayList<>();
    for (Node node : new Yaml(constructor).composeAll(yaml)) {
      expansion.add(node);
      documents.add(constructor.construct(node));
    }
    return documents;
  }

  /** Builds objects from a node already composed and measured. */
  private static final class Constructor extends SafeConstructor {

    Constructor(LoaderOptions options) {
      super(options);
    }

    Object construct(Node node) {
      return constructDocument(node);
    }
  }

  /**
   * Counts the nodes of the documents of one file as they expand: a node reached through an alias
   * counts as often as it is reached. Each distinct node is measured once, so counting takes time
   * in proportion to the composed graph, not to its expansion.
   */
  private static final class Expansion {

    private final IdentityHashMap<Node, Long> sizes = new IdentityHashMap<>();
    private final Set<Node> measuring = Collections.newSetFromMap(new IdentityHashMap<>());
    private long expanded;

    void add(Node document) {
      expanded += size(document);
      check(expanded);
    }

    private long size(Node node) {
      Long known = sizes.get(node);
      if (known != null) {
        return known;
      }
      if (!measuring.add(node)) {
        throw new YAMLException("an alias refers to a value that contains it");
      }
      long size = 1;
      if (node instanceof MappingNode mapping) {
        for (NodeTuple tuple : mapping.getValue()) {
          size += size(tuple.getKeyNode()) + size(tuple.getValueNode());
          check(expanded + size);
        }
      } else if (node instanceof SequenceNode sequence) {
        for (Node item : sequence.getValue()) {
          size += size(item);
          check(expanded + size);
        }
      }
      measuring.remove(node);
      sizes.put(node, size);
      return size;
    }

    private void check(long count) {
      if (count > MAX_NODES) {
        throw new YAMLException(tooManyNodes(sizes.size() <= MAX_NODES));
      }
    }
  }
}
