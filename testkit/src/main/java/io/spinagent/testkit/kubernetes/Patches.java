package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * Applies a PATCH body to the current object: JSON Patch (RFC 6902, {@link JsonPatchDocument}),
 * merge patch (RFC 7386, here, because fabric8's "merge" is Jackson's readerForUpdating, which
 * appends to arrays and keeps nulls instead of deleting) or strategic merge patch ({@link
 * StrategicMergePatch}).
 */
final class Patches {

  static final String JSON_PATCH = "application/json-patch+json";
  static final String MERGE_PATCH = "application/merge-patch+json";
  static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
  static final String APPLY_PATCH = "application/apply-patch+yaml";

  enum Kind {
    JSON,
    MERGE,
    STRATEGIC,
    APPLY
  }

  private Patches() {}

  static Kind kindOf(String contentType) {
    String mediaType =
        contentType == null ? "" : contentType.split(";", 0)[0].trim().toLowerCase(Locale.ROOT);
    return switch (mediaType) {
      case JSON_PATCH -> Kind.JSON;
      case MERGE_PATCH -> Kind.MERGE;
      case STRATEGIC_MERGE_PATCH -> Kind.STRATEGIC;
      case APPLY_PATCH -> Kind.APPLY;
      default -> throw ApiError.unsupportedMediaType(contentType);
    };
  }

  /**
   * Applies a JSON, merge or strategic merge patch and returns the new object (current is not
   * modified).
   */
  static ObjectNode apply(Kind kind, ObjectNode current, byte[] body) {
    switch (kind) {
      case JSON -> {
        JsonNode result = JsonPatchDocument.apply(Json.parse(body), current);
        if (!result.isObject()) {
          throw ApiError.badRequest("the JSON patch did not produce an object");
        }
        return (ObjectNode) result;
      }
      case MERGE -> {
        return (ObjectNode) mergePatch(current.deepCopy(), Json.parseObject(body));
      }
      case STRATEGIC -> {
        return StrategicMergePatch.apply(current, Json.parseObject(body));
      }
      default ->
          throw new IllegalArgumentException("apply patches are handled by the store: " + kind);
    }
  }

  /**
   * RFC 7386: objects merge recursively, null deletes, everything else (arrays included) replaces.
   */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target != null && target.isObject() ? (ObjectNode) target : Json.object();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), mergePatch(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }
}
