package io.spinagent.agent.config.yaml;

import io.spinagent.agent.config.yaml.ConfigNode.ListNode;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link ConfigNode} tree as plain YAML data (maps, lists, strings, numbers, booleans, nulls), in
 * which form the converter edits a file and writes it out again. Scalars keep the type YAML gave
 * them, so a quoted {@code "8082"} stays a string and {@code 8082} a number.
 */
public final class PlainYaml {

  private PlainYaml() {}

  public static Object of(ConfigNode node) {
    if (node instanceof MapNode map) {
      Map<String, Object> result = new LinkedHashMap<>();
      map.entries().forEach((key, entry) -> result.put(key, of(entry.value())));
      return result;
    }
    if (node instanceof ListNode list) {
      List<Object> result = new ArrayList<>();
      list.items().forEach(item -> result.add(of(item)));
      return result;
    }
    ScalarNode scalar = (ScalarNode) node;
    String text = scalar.text();
    return switch (scalar.kind()) {
      case NULL -> null;
      case BOOLEAN -> {
        String lower = text.toLowerCase(Locale.ROOT);
        yield lower.equals("true") || lower.equals("yes") || lower.equals("on");
      }
      case INTEGER -> integer(text);
      case FLOAT -> decimal(text);
      case STRING -> text;
    };
  }

  private static Object integer(String text) {
    String digits = text.trim().replace("_", "");
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      try {
        return new BigInteger(digits);
      } catch (NumberFormatException notDecimal) {
        // Octal, hexadecimal or sexagesimal YAML 1.1 integers: kept as written.
        return text;
      }
    }
  }

  private static Object decimal(String text) {
    try {
      double value = Double.parseDouble(text.trim().replace("_", ""));
      return Double.isFinite(value) ? value : text;
    } catch (NumberFormatException e) {
      return text;
    }
  }
}
