package io.spinagent.agent.config.yaml;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML value as read from a configuration file, before it is bound to the typed configuration.
 * Unlike the maps and lists SnakeYAML would construct, every node keeps its {@link Origin}, which
 * is what lets problems name the file and line of the value at fault.
 */
public sealed interface ConfigNode
    permits ConfigNode.MapNode, ConfigNode.ListNode, ConfigNode.ScalarNode {

  Origin origin();

  /** How the node is described in "expected ..., got ..." messages. */
  String description();

  /** A YAML mapping; keys keep the order in which they were written. */
  record MapNode(Origin origin, Map<String, Entry> entries) implements ConfigNode {

    public MapNode {
      entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    public static MapNode empty(Origin origin) {
      return new MapNode(origin, Map.of());
    }

    @Override
    public String description() {
      return "a map";
    }
  }

  /** A mapping value together with the position of its key (unknown keys are reported there). */
  record Entry(Origin keyOrigin, ConfigNode value) {}

  record ListNode(Origin origin, List<ConfigNode> items) implements ConfigNode {

    public ListNode {
      items = List.copyOf(items);
    }

    @Override
    public String description() {
      return "a list";
    }
  }

  /**
   * A YAML scalar. {@code text} is exactly what was written (without quotes), so that a string
   * field never sees YAML 1.1's reinterpretations such as {@code no} becoming {@code false}.
   */
  record ScalarNode(Origin origin, String text, ScalarKind kind) implements ConfigNode {

    @Override
    public String description() {
      return kind == ScalarKind.NULL ? "null" : Excerpt.quoted(text);
    }
  }

  /** What YAML's implicit typing made of a scalar; binding still decides what it accepts. */
  enum ScalarKind {
    STRING,
    INTEGER,
    FLOAT,
    BOOLEAN,
    NULL
  }
}
