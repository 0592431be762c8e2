package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One place for JSON and YAML handling. Objects travel through the server as Jackson trees because
 * the API is schemaless from our point of view: we must keep every field a client sent, in order.
 */
final class Json {

  static final ObjectMapper MAPPER = new ObjectMapper();
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private Json() {}

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** Parses a request body; anything but a JSON object is the client's mistake, hence 400. */
  static ObjectNode parseObject(byte[] body) {
    return parseObject(new String(body, StandardCharsets.UTF_8));
  }

  static ObjectNode parseObject(String body) {
    JsonNode node;
    try {
      node = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest("unable to parse request body as JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw ApiError.badRequest("the request body must be a JSON object");
    }
    return (ObjectNode) node;
  }

  static JsonNode parse(byte[] body) {
    try {
      return MAPPER.readTree(body);
    } catch (IOException e) {
      throw ApiError.badRequest("unable to parse request body as JSON: " + e.getMessage());
    }
  }

  /** Server-side apply bodies are YAML (JSON is a subset), so they get their own parser. */
  static ObjectNode parseYamlObject(byte[] body) {
    JsonNode node;
    try {
      node = YAML.readTree(body);
    } catch (IOException e) {
      throw ApiError.badRequest("unable to parse apply configuration as YAML: " + e.getMessage());
    }
    if (node == null || !node.isObject()) {
      throw ApiError.badRequest("the apply configuration must be an object");
    }
    return (ObjectNode) node;
  }

  /**
   * Stored objects are immutable strings; this is the (cheap enough) way back to a mutable tree.
   */
  static ObjectNode readStored(String json) {
    try {
      return (ObjectNode) MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored object is not valid JSON: " + json, e);
    }
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] bytes(JsonNode node) {
    return write(node).getBytes(StandardCharsets.UTF_8);
  }

  /** Text at a dotted path such as {@code metadata.name}, or null when absent or not a scalar. */
  static String text(JsonNode node, String dottedPath) {
    JsonNode current = node;
    for (String part : dottedPath.split("\\.", 0)) {
      if (current == null || !current.isObject()) {
        return null;
      }
      current = current.get(part);
    }
    if (current == null || current.isNull() || current.isContainerNode()) {
      return null;
    }
    return current.asText();
  }

  /**
   * Removes null-valued fields everywhere: Kubernetes treats null as absent and never stores it.
   */
  static void stripNulls(JsonNode node) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      List<String> nulls = new ArrayList<>();
      object
          .fields()
          .forEachRemaining(
              field -> {
                if (field.getValue().isNull()) {
                  nulls.add(field.getKey());
                } else {
                  stripNulls(field.getValue());
                }
              });
      object.remove(nulls);
    } else if (node.isArray()) {
      node.forEach(Json::stripNulls);
    }
  }

  /**
   * Makes {@code updated} reuse the current representation wherever the two differ only by empty
   * values ({@code {}}, {@code []} or absent). Typed clients such as client-java send {@code
   * "annotations": {}} for fields they never set, while a real API server (Go, omitempty) would see
   * no change; without this such an update would bump resourceVersion and generation and emit a
   * MODIFIED event for nothing.
   */
  static void keepEquivalent(JsonNode current, JsonNode updated) {
    if (current == null || !current.isObject() || !updated.isObject()) {
      if (current != null
          && current.isArray()
          && updated.isArray()
          && current.size() == updated.size()) {
        for (int i = 0; i < current.size(); i++) {
          keepEquivalent(current.get(i), updated.get(i));
        }
      }
      return;
    }
    ObjectNode target = (ObjectNode) updated;
    Set<String> names = new LinkedHashSet<>();
    current.fieldNames().forEachRemaining(names::add);
    updated.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      JsonNode before = current.get(name);
      JsonNode after = target.get(name);
      if (before == null && isEmpty(after)) {
        target.remove(name);
      } else if (after == null && isEmpty(before)) {
        target.set(name, before.deepCopy());
      } else if (before != null && after != null) {
        keepEquivalent(before, after);
      }
    }
  }

  private static boolean isEmpty(JsonNode node) {
    return node == null || node.isNull() || (node.isContainerNode() && node.isEmpty());
  }

  static ObjectNode metadata(ObjectNode object) {
    return child(object, "metadata");
  }

  /**
   * The object under {@code name}, created when missing. (Not Jackson's withObject: modules whose
   * test classpath carries Clouddriver's older Jackson use this class too.)
   */
  static ObjectNode child(ObjectNode parent, String name) {
    JsonNode child = parent.get(name);
    if (child == null || !child.isObject()) {
      ObjectNode created = object();
      parent.set(name, created);
      return created;
    }
    return (ObjectNode) child;
  }
}
