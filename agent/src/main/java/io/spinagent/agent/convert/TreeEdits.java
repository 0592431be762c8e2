package io.spinagent.agent.convert;

import io.spinagent.agent.armory.ArmoryRewrite;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies {@link ArmoryRewrite}s to a file held as plain YAML data. Rewrites name paths as the file
 * was written, so values are changed and keys removed first, without moving anything, and keys
 * renamed last. A map or list that is left empty by removals goes too, so that dropping every key
 * of Armory's {@code kubernetes.retries} drops {@code retries}; one that was empty as written
 * stays.
 */
final class TreeEdits {

  /** Stands in for a removed value until the end, so list positions do not shift meanwhile. */
  private static final Object REMOVED = new Object();

  private TreeEdits() {}

  static Map<String, Object> apply(Map<String, Object> tree, List<ArmoryRewrite> rewrites) {
    Map<String, Object> copy = asMap(deepCopy(tree));
    for (ArmoryRewrite rewrite : rewrites) {
      switch (rewrite.kind()) {
        case REPLACE -> set(copy, rewrite.path(), deepCopy(rewrite.value()), false);
        case ADD -> set(copy, rewrite.path(), deepCopy(rewrite.value()), true);
        case REMOVE -> set(copy, rewrite.path(), REMOVED, false);
        case RENAME -> {
          // Below, once nothing else refers to the key as written.
        }
      }
    }
    for (ArmoryRewrite rewrite : rewrites) {
      if (rewrite.kind() == ArmoryRewrite.Kind.RENAME) {
        rename(copy, rewrite.path(), (String) rewrite.value());
      }
    }
    Object cleaned = withoutRemoved(copy);
    return cleaned == REMOVED ? new LinkedHashMap<>() : asMap(cleaned);
  }

  private static void set(Map<String, Object> root, List<Object> path, Object value, boolean add) {
    Object parent = root;
    for (int i = 0; i < path.size() - 1; i++) {
      Object segment = path.get(i);
      Object child = get(parent, segment);
      if (child == null && add && parent instanceof Map<?, ?>) {
        child = new LinkedHashMap<String, Object>();
        asMap(parent).put((String) segment, child);
      }
      if (child == null || child == REMOVED) {
        return;
      }
      parent = child;
    }
    Object last = path.get(path.size() - 1);
    if (parent instanceof Map<?, ?> && last instanceof String key) {
      Map<String, Object> map = asMap(parent);
      if (!add || !map.containsKey(key)) {
        map.put(key, value);
      }
    } else if (parent instanceof List<?> && last instanceof Integer index) {
      List<Object> list = asList(parent);
      if (index < list.size()) {
        list.set(index, value);
      }
    }
  }

  /** Renames the key at {@code path}, keeping its place among its siblings. */
  private static void rename(Map<String, Object> root, List<Object> path, String newKey) {
    Object parent = root;
    for (int i = 0; i < path.size() - 1; i++) {
      parent = get(parent, path.get(i));
      if (parent == null || parent == REMOVED) {
        return;
      }
    }
    if (!(parent instanceof Map<?, ?>)) {
      return;
    }
    Map<String, Object> map = asMap(parent);
    String oldKey = (String) path.get(path.size() - 1);
    if (!map.containsKey(oldKey) || map.containsKey(newKey)) {
      return;
    }
    Map<String, Object> renamed = new LinkedHashMap<>();
    map.forEach((k, v) -> renamed.put(k.equals(oldKey) ? newKey : k, v));
    map.clear();
    map.putAll(renamed);
  }

  private static Object get(Object container, Object segment) {
    if (container instanceof Map<?, ?> map && segment instanceof String key) {
      return map.get(key);
    }
    if (container instanceof List<?> list
        && segment instanceof Integer index
        && index < list.size()) {
      return list.get(index);
    }
    return null;
  }

  private static Object withoutRemoved(Object value) {
    if (value instanceof Map<?, ?> map) {
      boolean hadEntries = !map.isEmpty();
      Map<String, Object> result = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        Object cleaned = withoutRemoved(entry.getValue());
        if (cleaned != REMOVED) {
          result.put((String) entry.getKey(), cleaned);
        }
      }
      return hadEntries && result.isEmpty() ? REMOVED : result;
    }
    if (value instanceof List<?> list) {
      boolean hadItems = !list.isEmpty();
      List<Object> result = new ArrayList<>();
      for (Object item : list) {
        Object cleaned = withoutRemoved(item);
        if (cleaned != REMOVED) {
          result.add(cleaned);
        }
      }
      return hadItems && result.isEmpty() ? REMOVED : result;
    }
    return value;
  }

  /** Values from rewrites may be immutable, and the tree is edited in place. */
  private static Object deepCopy(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put((String) k, deepCopy(v)));
      return copy;
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>();
      list.forEach(item -> copy.add(deepCopy(item)));
      return copy;
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> asList(Object value) {
    return (List<Object>) value;
  }
}
