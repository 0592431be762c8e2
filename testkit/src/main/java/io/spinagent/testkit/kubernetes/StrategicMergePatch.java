package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strategic merge patch without schemas. A real API server knows, from Go struct tags, which lists
 * merge by which key; we do not have those schemas, so this uses the merge keys of the Kubernetes
 * types that matter in practice (containers by name, ports by containerPort/port, env by name,
 * volumes by name, ...) and treats every other list as "replace", exactly like a list without a
 * patch strategy. The directives kubectl emits are honoured: {@code $patch} (replace/delete/merge),
 * {@code $setElementOrder/<list>}, {@code $deleteFromPrimitiveList/<list>} and {@code $retainKeys}.
 *
 * <p>Known gap: a custom resource's lists are merged by these names too, where a real server (which
 * has no strategic merge for CRDs at all) answers 415; kubectl never sends strategic patches for
 * CRDs.
 */
final class StrategicMergePatch {

  /** Field name of a list -> candidate merge keys, first one present in the elements wins. */
  private static final Map<String, List<String>> MERGE_KEYS =
      Map.ofEntries(
          Map.entry("containers", List.of("name")),
          Map.entry("initContainers", List.of("name")),
          Map.entry("ephemeralContainers", List.of("name")),
          Map.entry("volumes", List.of("name")),
          Map.entry("env", List.of("name")),
          Map.entry("volumeMounts", List.of("mountPath")),
          Map.entry("volumeDevices", List.of("devicePath")),
          Map.entry("imagePullSecrets", List.of("name")),
          Map.entry("ports", List.of("containerPort", "port")),
          Map.entry("hostAliases", List.of("ip")),
          Map.entry("conditions", List.of("type")),
          Map.entry("ownerReferences", List.of("uid")),
          Map.entry("topologySpreadConstraints", List.of("topologyKey")),
          Map.entry("resourceClaims", List.of("name")));

  /** Lists of scalars whose patch strategy is "merge" (union) rather than replace. */
  private static final Set<String> MERGED_PRIMITIVE_LISTS = Set.of("finalizers");

  private static final String PATCH = "$patch";
  private static final String RETAIN_KEYS = "$retainKeys";
  private static final String SET_ORDER = "$setElementOrder/";
  private static final String DELETE_FROM = "$deleteFromPrimitiveList/";

  private StrategicMergePatch() {}

  static ObjectNode apply(ObjectNode current, ObjectNode patch) {
    JsonNode result = mergeObject(current.deepCopy(), patch);
    return result == null ? Json.object() : (ObjectNode) result;
  }

  /** Returns the merged object, or null when the patch says {@code $patch: delete}. */
  private static JsonNode mergeObject(ObjectNode target, ObjectNode patch) {
    String directive = patch.path(PATCH).asText("merge");
    if ("delete".equals(directive)) {
      return null;
    }
    if ("replace".equals(directive)) {
      return stripDirectives(patch);
    }
    ObjectNode result = target == null ? Json.object() : target;
    List<Map.Entry<String, JsonNode>> orders = new ArrayList<>();
    List<Map.Entry<String, JsonNode>> deletions = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (name.equals(PATCH) || name.equals(RETAIN_KEYS)) {
        continue;
      }
      if (name.startsWith(SET_ORDER)) {
        orders.add(field);
        continue;
      }
      if (name.startsWith(DELETE_FROM)) {
        deletions.add(field);
        continue;
      }
      if (value.isNull()) {
        result.remove(name);
      } else if (value.isObject()) {
        JsonNode existing = result.get(name);
        JsonNode merged =
            mergeObject(
                existing != null && existing.isObject() ? (ObjectNode) existing : null,
                (ObjectNode) value);
        if (merged == null) {
          result.remove(name);
        } else {
          result.set(name, merged);
        }
      } else if (value.isArray()) {
        result.set(name, mergeList(name, result.get(name), (ArrayNode) value));
      } else {
        result.set(name, value.deepCopy());
      }
    }
    for (Map.Entry<String, JsonNode> deletion : deletions) {
      String list = deletion.getKey().substring(DELETE_FROM.length());
      JsonNode existing = result.get(list);
      if (existing != null && existing.isArray()) {
        Set<JsonNode> remove = new HashSet<>();
        deletion.getValue().forEach(remove::add);
        ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        existing.forEach(
            element -> {
              if (!remove.contains(element)) {
                kept.add(element);
              }
            });
        result.set(list, kept);
      }
    }
    for (Map.Entry<String, JsonNode> order : orders) {
      String list = order.getKey().substring(SET_ORDER.length());
      JsonNode existing = result.get(list);
      if (existing != null && existing.isArray()) {
        result.set(list, reorder(list, (ArrayNode) existing, order.getValue()));
      }
    }
    JsonNode retain = patch.get(RETAIN_KEYS);
    if (retain != null && retain.isArray()) {
      Set<String> keep = new HashSet<>();
      retain.forEach(key -> keep.add(key.asText()));
      result.retain(keep);
    }
    return result;
  }

  private static JsonNode mergeList(String field, JsonNode existing, ArrayNode patch) {
    for (JsonNode element : patch) {
      if (element.isObject()
          && "replace".equals(element.path(PATCH).asText())
          && element.size() == 1) {
        ArrayNode replaced = JsonNodeFactory.instance.arrayNode();
        patch.forEach(
            e -> {
              // Drops this very directive element, not other elements equal to it.
              @SuppressWarnings("ReferenceEquality")
              boolean directive = e == element;
              if (!directive) {
                replaced.add(stripDirectives(e));
              }
            });
        return replaced;
      }
    }
    String mergeKey = mergeKey(field, patch);
    if (mergeKey == null) {
      if (MERGED_PRIMITIVE_LISTS.contains(field) && existing != null && existing.isArray()) {
        ArrayNode union = ((ArrayNode) existing).deepCopy();
        Set<JsonNode> present = new HashSet<>();
        union.forEach(present::add);
        patch.forEach(
            element -> {
              if (present.add(element)) {
                union.add(element.deepCopy());
              }
            });
        return union;
      }
      return stripDirectives(patch);
    }
    ArrayNode result =
        existing != null && existing.isArray()
            ? ((ArrayNode) existing).deepCopy()
            : JsonNodeFactory.instance.arrayNode();
    for (JsonNode element : patch) {
      JsonNode keyValue = element.get(mergeKey);
      int index = indexOf(result, mergeKey, keyValue);
      if ("delete".equals(element.path(PATCH).asText())) {
        if (index >= 0) {
          result.remove(index);
        }
      } else if (index >= 0) {
        JsonNode merged = mergeObject((ObjectNode) result.get(index), (ObjectNode) element);
        if (merged == null) {
          result.remove(index);
        } else {
          result.set(index, merged);
        }
      } else {
        result.add(stripDirectives(element));
      }
    }
    return result;
  }

  /** The merge key of a list, if it is a known mergeable list whose elements all carry the key. */
  private static String mergeKey(String field, ArrayNode patch) {
    List<String> candidates = MERGE_KEYS.get(field);
    if (candidates == null || patch.isEmpty()) {
      return null;
    }
    for (String candidate : candidates) {
      boolean all = true;
      for (JsonNode element : patch) {
        if (!element.isObject() || !element.has(candidate)) {
          all = false;
          break;
        }
      }
      if (all) {
        return candidate;
      }
    }
    return null;
  }

  private static int indexOf(ArrayNode list, String key, JsonNode value) {
    for (int i = 0; i < list.size(); i++) {
      JsonNode element = list.get(i);
      if (element.isObject() && value != null && value.equals(element.get(key))) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Orders a list as {@code $setElementOrder} says; elements it does not mention keep their order
   * after.
   */
  private static ArrayNode reorder(String field, ArrayNode list, JsonNode order) {
    List<JsonNode> remaining = new ArrayList<>();
    list.forEach(remaining::add);
    ArrayNode result = JsonNodeFactory.instance.arrayNode();
    String mergeKey =
        order.isArray() && order.size() > 0 && order.get(0).isObject()
            ? mergeKey(field, (ArrayNode) order)
            : null;
    for (JsonNode wanted : order) {
      for (Iterator<JsonNode> it = remaining.iterator(); it.hasNext(); ) {
        JsonNode element = it.next();
        boolean same =
            mergeKey != null
                ? element.isObject() && wanted.get(mergeKey).equals(element.get(mergeKey))
                : element.equals(wanted);
        if (same) {
          result.add(element);
          it.remove();
          break;
        }
      }
    }
    remaining.forEach(result::add);
    return result;
  }

  private static JsonNode stripDirectives(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = Json.object();
      node.fields()
          .forEachRemaining(
              field -> {
                String name = field.getKey();
                if (!name.equals(PATCH)
                    && !name.equals(RETAIN_KEYS)
                    && !name.startsWith(SET_ORDER)
                    && !name.startsWith(DELETE_FROM)) {
                  copy.set(name, stripDirectives(field.getValue()));
                }
              });
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      node.forEach(element -> copy.add(stripDirectives(element)));
      return copy;
    }
    return node.deepCopy();
  }
}
