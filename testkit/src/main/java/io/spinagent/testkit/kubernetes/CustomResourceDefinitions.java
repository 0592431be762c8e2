package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads a CustomResourceDefinition into the resource types it declares, and writes the status a
 * real API server's CRD controllers would set (NamesAccepted, Established), which clients wait for.
 */
final class CustomResourceDefinitions {

  static final String GROUP = "apiextensions.k8s.io";
  static final String PLURAL = "customresourcedefinitions";

  private CustomResourceDefinitions() {}

  static boolean isCrd(ResourceType type) {
    return GROUP.equals(type.group()) && PLURAL.equals(type.plural());
  }

  /** Rejects what a real server rejects up front, so tests with a broken CRD fail loudly. */
  static void validate(ResourceType crdType, ObjectNode crd) {
    String name = Json.text(crd, "metadata.name");
    String group = Json.text(crd, "spec.group");
    String plural = Json.text(crd, "spec.names.plural");
    String kind = Json.text(crd, "spec.names.kind");
    if (group == null || plural == null || kind == null) {
      throw ApiError.invalid(
          crdType, name, "spec.group, spec.names.plural and spec.names.kind are required");
    }
    if (!(plural + "." + group).equals(name)) {
      throw ApiError.invalid(
          crdType,
          name,
          "metadata.name: Invalid value: \""
              + name
              + "\": must be spec.names.plural+\".\"+spec.group");
    }
    JsonNode versions = crd.path("spec").path("versions");
    if (!versions.isArray() || versions.isEmpty()) {
      throw ApiError.invalid(
          crdType, name, "spec.versions: Required value: must have at least one version");
    }
  }

  static List<ResourceType> typesOf(ObjectNode crd) {
    String name = Json.text(crd, "metadata.name");
    JsonNode spec = crd.path("spec");
    JsonNode names = spec.path("names");
    String group = spec.path("group").asText();
    String kind = names.path("kind").asText();
    String plural = names.path("plural").asText();
    String singular = names.path("singular").asText("");
    if (singular.isEmpty()) {
      singular = kind.toLowerCase(Locale.ROOT);
    }
    boolean namespaced = !"Cluster".equals(spec.path("scope").asText("Namespaced"));
    List<String> shortNames = strings(names.path("shortNames"));
    List<String> categories = strings(names.path("categories"));
    List<ResourceType> types = new ArrayList<>();
    for (JsonNode version : spec.path("versions")) {
      if (!version.path("served").asBoolean(true)) {
        continue;
      }
      JsonNode subresources = version.path("subresources");
      ResourceType.Scale scale = null;
      if (subresources.has("scale")) {
        JsonNode s = subresources.get("scale");
        scale =
            new ResourceType.Scale(
                s.path("specReplicasPath").asText(".spec.replicas"),
                s.path("statusReplicasPath").asText(".status.replicas"),
                s.path("labelSelectorPath").asText(null));
      }
      types.add(
          new ResourceType(
              group,
              version.path("name").asText(),
              kind,
              plural,
              singular,
              namespaced,
              shortNames,
              categories,
              subresources.has("status"),
              scale,
              ResourceType.Serving.STORED,
              name));
    }
    return types;
  }

  /**
   * The status the apiextensions controllers write once names are accepted.
   *
   * @param now the server's time, for the conditions' lastTransitionTime
   */
  static ObjectNode establishedStatus(ObjectNode crd, String now) {
    JsonNode names = crd.path("spec").path("names");
    ObjectNode status = Json.object();
    ObjectNode accepted = names.isObject() ? ((ObjectNode) names).deepCopy() : Json.object();
    String kind = accepted.path("kind").asText();
    if (!accepted.has("singular")) {
      accepted.put("singular", kind.toLowerCase(Locale.ROOT));
    }
    if (!accepted.has("listKind")) {
      accepted.put("listKind", kind + "List");
    }
    status.set("acceptedNames", accepted);
    ArrayNode conditions = status.putArray("conditions");
    conditions
        .addObject()
        .put("type", "NamesAccepted")
        .put("status", "True")
        .put("reason", "NoConflicts")
        .put("message", "no conflicts found")
        .put("lastTransitionTime", now);
    conditions
        .addObject()
        .put("type", "Established")
        .put("status", "True")
        .put("reason", "InitialNamesAccepted")
        .put("message", "the initial names have been accepted")
        .put("lastTransitionTime", now);
    ArrayNode stored = status.putArray("storedVersions");
    for (JsonNode version : crd.path("spec").path("versions")) {
      if (version.path("storage").asBoolean(false)) {
        stored.add(version.path("name").asText());
      }
    }
    return status;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(node -> values.add(node.asText()));
    return values;
  }
}
