package io.spinagent.agent.config.binding;

import io.spinagent.agent.armory.ArmoryAgentKeys;
import io.spinagent.agent.armory.ArmoryKey;
import io.spinagent.agent.armory.ArmoryRewrite;
import io.spinagent.agent.config.yaml.ConfigNode;
import io.spinagent.agent.config.yaml.ConfigNode.Entry;
import io.spinagent.agent.config.yaml.ConfigNode.ListNode;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarKind;
import io.spinagent.agent.config.yaml.ConfigNode.ScalarNode;
import io.spinagent.agent.config.yaml.Problems;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The keys of a map that no binding code asked for, once it is bound: Armory Scale Agent's keys
 * that SpinAgent does not apply are warned about (and their removal recorded for the converter) as
 * {@link ArmoryAgentKeys} says; any other is unknown, reported with the known key it was most
 * likely meant to be.
 */
final class LeftoverKeys {

  private final Binding binding;
  private final Problems problems;

  LeftoverKeys(Binding binding) {
    this.binding = binding;
    this.problems = binding.problems;
  }

  /**
   * Reports each key of {@code map} (at {@code path}) not in {@code known} or {@code armoryKeys}:
   * as a warning when Armory has it, as unknown otherwise.
   */
  void check(
      MapNode map, String path, List<Object> segments, Set<String> known, Set<String> armoryKeys) {
    map.entries()
        .forEach(
            (key, entry) -> {
              if (known.contains(key) || armoryKeys.contains(key)) {
                return;
              }
              String keyPath = path.isEmpty() ? key : path + "." + key;
              List<Object> keySegments = new ArrayList<>(segments);
              keySegments.add(key);
              if (!armoryOnly(entry, keyPath, keySegments)) {
                unknown(entry, keyPath, known, armoryKeys);
              }
            });
  }

  /**
   * Handles a key SpinAgent's binding does not read, if Armory Scale Agent has it: warns (or, for
   * {@link ArmoryKey.Treatment#UNSUPPORTED}, reports a problem) and records its removal. A map of
   * Armory's keys (or a list of such maps) is gone through key by key. False when Armory has no
   * such key either.
   */
  private boolean armoryOnly(Entry entry, String keyPath, List<Object> keySegments) {
    String pattern = ArmoryAgentKeys.pattern(keyPath);
    Optional<ArmoryKey> row = ArmoryAgentKeys.row(pattern);
    if (row.isPresent()) {
      switch (row.get().treatment()) {
        case WARNED -> {
          boolean harmless = isHarmless(entry.value(), row.get().harmless());
          if (!harmless) {
            problems.warn(entry.keyOrigin(), keyPath, row.get().warning());
          }
          binding.rewrite(
              new ArmoryRewrite(
                  keySegments,
                  ArmoryRewrite.Kind.REMOVE,
                  null,
                  keyPath,
                  entry.keyOrigin(),
                  (harmless
                          ? "dropped (" + row.get().harmless() + " changes nothing): "
                          : "dropped: ")
                      + row.get().warning()));
          return true;
        }
        case UNSUPPORTED -> {
          problems.add(
              entry.keyOrigin(),
              keyPath,
              "Armory Scale Agent setting ("
                  + row.get().armory()
                  + ") that SpinAgent cannot honour: "
                  + row.get().spinAgent());
          return true;
        }
        default -> {
          // SAME and CONVERTED keys are read by the binding code; not having been asked for one
          // here means it is misplaced.
          return false;
        }
      }
    }
    Set<String> children = ArmoryAgentKeys.childKeys(pattern);
    if (children.isEmpty()) {
      return false;
    }
    ConfigNode value = entry.value();
    if (value instanceof MapNode section) {
      armorySection(section, keyPath, keySegments, children);
    } else if (value instanceof ListNode list) {
      for (int i = 0; i < list.items().size(); i++) {
        ConfigNode item = list.items().get(i);
        String itemPath = keyPath + "[" + i + "]";
        List<Object> itemSegments = new ArrayList<>(keySegments);
        itemSegments.add(i);
        if (item instanceof MapNode itemMap) {
          armorySection(itemMap, itemPath, itemSegments, children);
        } else {
          problems.add(
              item.origin(), itemPath, "expected a map of keys, got " + item.description());
        }
      }
    } else if (!(value instanceof ScalarNode s && s.kind() == ScalarKind.NULL)) {
      problems.add(value.origin(), keyPath, "expected a map of keys, got " + value.description());
    }
    return true;
  }

  private void armorySection(
      MapNode section, String sectionPath, List<Object> sectionSegments, Set<String> children) {
    section
        .entries()
        .forEach(
            (key, entry) -> {
              String keyPath = sectionPath + "." + key;
              List<Object> keySegments = new ArrayList<>(sectionSegments);
              keySegments.add(key);
              if (!armoryOnly(entry, keyPath, keySegments)) {
                unknown(entry, keyPath, children, Set.of());
              }
            });
  }

  private static boolean isHarmless(ConfigNode value, String harmless) {
    if (harmless == null) {
      return false;
    }
    if (harmless.equals("[]")) {
      return value instanceof ListNode list && list.items().isEmpty();
    }
    return value instanceof ScalarNode scalar && scalar.text().trim().equalsIgnoreCase(harmless);
  }

  /**
   * Reports an unknown key, suggesting the known key (or Armory key) it was most likely meant to
   * be, or listing the known keys.
   */
  private void unknown(Entry entry, String keyPath, Set<String> knownHere, Set<String> armoryKeys) {
    String key = keyPath.substring(keyPath.lastIndexOf('.') + 1);
    Set<String> armoryHere = new LinkedHashSet<>(armoryKeys);
    armoryHere.addAll(ArmoryAgentKeys.childKeys(ArmoryAgentKeys.pattern(parentOf(keyPath))));
    String hint =
        ClosestKey.among(key, knownHere)
            .or(() -> ClosestKey.among(key, armoryHere))
            .map(match -> "did you mean '" + match + "'?")
            .orElseGet(
                () ->
                    knownHere.isEmpty()
                        ? "this map takes no keys"
                        : "known keys here: " + String.join(", ", knownHere));
    problems.add(entry.keyOrigin(), keyPath, "unknown key; " + hint);
  }

  private static String parentOf(String keyPath) {
    int dot = keyPath.lastIndexOf('.');
    return dot < 0 ? "" : keyPath.substring(0, dot);
  }
}
