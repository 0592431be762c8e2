package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 6902 JSON Patch with RFC 6901 pointers. Our own because the zjsonpatch that fabric8 6.x ships
 * (0.3.0) knows neither {@code test} nor {@code copy}, and Kubernetes clients use {@code test} as a
 * precondition and need {@code ~1} escapes for label keys such as {@code app.kubernetes.io/name}.
 */
final class JsonPatchDocument {

  private JsonPatchDocument() {}

  /**
   * Applies every operation in order to a copy of {@code target}; any failure fails the whole patch
   * (422).
   */
  static JsonNode apply(JsonNode operations, JsonNode target) {
    if (!operations.isArray()) {
      throw ApiError.badRequest("a JSON patch must be an array of operations");
    }
    JsonNode document = target.deepCopy();
    int index = 0;
    for (JsonNode operation : operations) {
      try {
        document = applyOne(operation, document);
      } catch (IllegalArgumentException e) {
        throw new ApiError(
            422,
            "Invalid",
            "the JSON patch could not be applied: operation " + index + ": " + e.getMessage());
      }
      index++;
    }
    return document;
  }

  private static JsonNode applyOne(JsonNode operation, JsonNode document) {
    String op = operation.path("op").asText("");
    List<String> path = pointer(required(operation, "path"));
    switch (op) {
      case "add" -> {
        return add(document, path, required(operation, "value").deepCopy());
      }
      case "remove" -> {
        remove(document, path);
        return document;
      }
      case "replace" -> {
        if (path.isEmpty()) {
          return required(operation, "value").deepCopy();
        }
        get(document, path);
        remove(document, path);
        return add(document, path, required(operation, "value").deepCopy());
      }
      case "move" -> {
        List<String> from = pointer(required(operation, "from"));
        JsonNode value = get(document, from);
        remove(document, from);
        return add(document, path, value);
      }
      case "copy" -> {
        JsonNode value = get(document, pointer(required(operation, "from"))).deepCopy();
        return add(document, path, value);
      }
      case "test" -> {
        if (!get(document, path).equals(required(operation, "value"))) {
          throw new IllegalArgumentException("test failed at " + operation.get("path").asText());
        }
        return document;
      }
      default -> throw new IllegalArgumentException("unknown op \"" + op + "\"");
    }
  }

  private static JsonNode required(JsonNode operation, String field) {
    JsonNode value = operation.get(field);
    if (value == null) {
      throw new IllegalArgumentException("missing \"" + field + "\"");
    }
    return value;
  }

  private static List<String> pointer(JsonNode pointer) {
    String text = pointer.asText();
    List<String> tokens = new ArrayList<>();
    if (text.isEmpty()) {
      return tokens;
    }
    if (!text.startsWith("/")) {
      throw new IllegalArgumentException("invalid JSON pointer \"" + text + "\"");
    }
    for (String token : text.substring(1).split("/", -1)) {
      tokens.add(token.replace("~1", "/").replace("~0", "~"));
    }
    return tokens;
  }

  private static JsonNode get(JsonNode document, List<String> path) {
    JsonNode current = document;
    for (String token : path) {
      if (current.isObject()) {
        current = current.get(token);
      } else if (current.isArray()) {
        current = current.get(arrayIndex(token, current.size() - 1));
      } else {
        current = null;
      }
      if (current == null) {
        throw new IllegalArgumentException("no value at /" + String.join("/", path));
      }
    }
    return current;
  }

  private static JsonNode add(JsonNode document, List<String> path, JsonNode value) {
    if (path.isEmpty()) {
      return value;
    }
    JsonNode parent = get(document, path.subList(0, path.size() - 1));
    String last = path.get(path.size() - 1);
    if (parent.isObject()) {
      ((ObjectNode) parent).set(last, value);
    } else if (parent.isArray()) {
      ArrayNode array = (ArrayNode) parent;
      if (last.equals("-")) {
        array.add(value);
      } else {
        array.insert(arrayIndex(last, array.size()), value);
      }
    } else {
      throw new IllegalArgumentException(
          "parent of /" + String.join("/", path) + " is not a container");
    }
    return document;
  }

  private static void remove(JsonNode document, List<String> path) {
    if (path.isEmpty()) {
      throw new IllegalArgumentException("cannot remove the whole document");
    }
    JsonNode parent = get(document, path.subList(0, path.size() - 1));
    String last = path.get(path.size() - 1);
    if (parent.isObject()) {
      if (((ObjectNode) parent).remove(last) == null) {
        throw new IllegalArgumentException("no value at /" + String.join("/", path));
      }
    } else if (parent.isArray()) {
      ((ArrayNode) parent).remove(arrayIndex(last, parent.size() - 1));
    } else {
      throw new IllegalArgumentException(
          "parent of /" + String.join("/", path) + " is not a container");
    }
  }

  private static int arrayIndex(String token, int max) {
    try {
      int index = Integer.parseInt(token);
      if (index < 0 || index > max || (token.length() > 1 && token.startsWith("0"))) {
        throw new IllegalArgumentException("array index " + token + " out of bounds");
      }
      return index;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid array index \"" + token + "\"");
    }
  }
}
