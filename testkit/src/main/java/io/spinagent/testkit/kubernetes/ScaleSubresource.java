package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code /scale} subresource: presents an object as an {@code autoscaling/v1 Scale} and writes
 * a Scale's {@code spec.replicas} back into the object. {@code kubectl scale} patches this
 * subresource.
 */
final class ScaleSubresource {

  private ScaleSubresource() {}

  static ObjectNode toScale(ResourceType type, ObjectNode object) {
    ResourceType.Scale paths = requireScale(type);
    ObjectNode scale = Json.object();
    scale.put("kind", "Scale");
    scale.put("apiVersion", "autoscaling/v1");
    ObjectNode metadata = scale.putObject("metadata");
    JsonNode source = object.path("metadata");
    for (String field :
        new String[] {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (source.hasNonNull(field)) {
        metadata.set(field, source.get(field));
      }
    }
    JsonNode specReplicas = at(object, paths.specReplicasPath());
    scale.putObject("spec").put("replicas", specReplicas == null ? 0 : specReplicas.asInt());
    ObjectNode status = scale.putObject("status");
    JsonNode statusReplicas = at(object, paths.statusReplicasPath());
    status.put("replicas", statusReplicas == null ? 0 : statusReplicas.asInt());
    String selector =
        type.crdName() == null ? selectorOf(object) : textAt(object, paths.labelSelectorPath());
    if (selector != null && !selector.isEmpty()) {
      status.put("selector", selector);
    }
    return scale;
  }

  /**
   * Writes the Scale's replicas into the object; a resourceVersion on the Scale becomes a
   * precondition.
   */
  static ObjectNode applyScale(ResourceType type, ObjectNode object, ObjectNode scale) {
    ResourceType.Scale paths = requireScale(type);
    JsonNode replicas = scale.path("spec").get("replicas");
    if (replicas == null || !replicas.canConvertToInt() || replicas.asInt() < 0) {
      throw ApiError.invalid(
          type,
          Json.text(object, "metadata.name"),
          "spec.replicas: Invalid value: must be a non-negative integer");
    }
    set(object, paths.specReplicasPath(), replicas.asInt());
    String resourceVersion = Json.text(scale, "metadata.resourceVersion");
    if (resourceVersion != null && !resourceVersion.isEmpty()) {
      Json.metadata(object).put("resourceVersion", resourceVersion);
    }
    return object;
  }

  private static ResourceType.Scale requireScale(ResourceType type) {
    if (type.scale() == null) {
      throw ApiError.notFoundPath();
    }
    return type.scale();
  }

  /**
   * The label selector string of a built-in workload's spec.selector (matchLabels and
   * matchExpressions).
   */
  private static String selectorOf(ObjectNode object) {
    JsonNode selector = object.path("spec").path("selector");
    List<String> parts = new ArrayList<>();
    if (selector.has("matchLabels")) {
      selector
          .get("matchLabels")
          .fields()
          .forEachRemaining(e -> parts.add(e.getKey() + "=" + e.getValue().asText()));
    } else if (selector.isObject() && !selector.has("matchExpressions")) {
      // ReplicationController: spec.selector is a plain map.
      selector.fields().forEachRemaining(e -> parts.add(e.getKey() + "=" + e.getValue().asText()));
    }
    for (JsonNode expression : selector.path("matchExpressions")) {
      String key = expression.path("key").asText();
      String operator = expression.path("operator").asText();
      List<String> values = new ArrayList<>();
      expression.path("values").forEach(v -> values.add(v.asText()));
      switch (operator) {
        case "In" -> parts.add(key + " in (" + String.join(",", values) + ")");
        case "NotIn" -> parts.add(key + " notin (" + String.join(",", values) + ")");
        case "Exists" -> parts.add(key);
        case "DoesNotExist" -> parts.add("!" + key);
        default -> {}
      }
    }
    return String.join(",", parts);
  }

  private static JsonNode at(ObjectNode object, String jsonPath) {
    if (jsonPath == null) {
      return null;
    }
    JsonNode current = object;
    for (String part : segments(jsonPath)) {
      current = current == null ? null : current.get(part);
    }
    return current == null || current.isNull() ? null : current;
  }

  private static String textAt(ObjectNode object, String jsonPath) {
    JsonNode node = at(object, jsonPath);
    return node == null ? null : node.asText();
  }

  private static void set(ObjectNode object, String jsonPath, int value) {
    List<String> parts = segments(jsonPath);
    ObjectNode current = object;
    for (int i = 0; i < parts.size() - 1; i++) {
      current = Json.child(current, parts.get(i));
    }
    current.put(parts.get(parts.size() - 1), value);
  }

  private static List<String> segments(String jsonPath) {
    List<String> parts = new ArrayList<>();
    for (String part : jsonPath.replaceFirst("^\\.", "").split("\\.", 0)) {
      if (!part.isEmpty()) {
        parts.add(part);
      }
    }
    return parts;
  }
}
