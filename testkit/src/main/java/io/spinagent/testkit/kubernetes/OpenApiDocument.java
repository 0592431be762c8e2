package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A minimal OpenAPI v3 description, generated from the registry, with just what kubectl 1.32 reads:
 *
 * <ul>
 *   <li>{@code kubectl apply/create} validate with {@code --validate=strict} by default. They first
 *       ask OpenAPI v3 whether the object's PATCH operation accepts the {@code fieldValidation}
 *       query parameter; if it does, validation is left to the server. Without /openapi/v3 kubectl
 *       would fall back to downloading /openapi/v2 and fail with "failed to download openapi". So
 *       every operation here carries {@code x-kubernetes-group-version-kind} and a {@code
 *       fieldValidation} parameter.
 *   <li>Client-side {@code kubectl apply} builds strategic merge patches from OpenAPI v3 only when
 *       the PATCH operation lists {@code application/strategic-merge-patch+json}. It is
 *       deliberately not listed: kubectl then uses the schemas compiled into it for built-in kinds
 *       (correct merge keys) and a JSON merge patch for custom resources, exactly as against a
 *       server without schemas.
 * </ul>
 *
 * /openapi/v2 is not served (404); kubectl treats that as "no schema" in the code paths above.
 * Schemas are open objects ({@code x-kubernetes-preserve-unknown-fields}): the server does not
 * validate fields.
 */
final class OpenApiDocument {

  private final ResourceTypeRegistry registry;
  private final String gitVersion;

  OpenApiDocument(ResourceTypeRegistry registry, String gitVersion) {
    this.registry = registry;
    this.gitVersion = gitVersion;
  }

  /** GET /openapi/v3: one entry per group version, each URL carrying a hash of its document. */
  ObjectNode index() {
    ObjectNode index = Json.object();
    ObjectNode paths = index.putObject("paths");
    for (String version : registry.versions("")) {
      addIndexEntry(paths, "api/" + version);
    }
    for (String group : registry.groupNames()) {
      for (String version : registry.versions(group)) {
        addIndexEntry(paths, "apis/" + group + "/" + version);
      }
    }
    return index;
  }

  private void addIndexEntry(ObjectNode paths, String path) {
    ObjectNode document = groupVersion(path);
    paths
        .putObject(path)
        .put("serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash(document));
  }

  /** GET /openapi/v3/api/v1 or /openapi/v3/apis/{group}/{version}. */
  ObjectNode groupVersion(String path) {
    String[] parts = path.split("/", 0);
    String group;
    String version;
    if (parts.length == 2 && parts[0].equals("api")) {
      group = "";
      version = parts[1];
    } else if (parts.length == 3 && parts[0].equals("apis")) {
      group = parts[1];
      version = parts[2];
    } else {
      throw ApiError.notFoundPath();
    }
    if (!registry.hasGroupVersion(group, version)) {
      throw ApiError.notFoundPath();
    }
    ObjectNode document = Json.object();
    document.put("openapi", "3.0.0");
    document.putObject("info").put("title", "Kubernetes").put("version", gitVersion);
    ObjectNode paths = document.putObject("paths");
    ObjectNode schemas = document.putObject("components").putObject("schemas");
    schemas
        .putObject("io.k8s.apimachinery.pkg.apis.meta.v1.Patch")
        .put("type", "object")
        .put(
            "description",
            "Patch is provided to give a concrete name and type to the Kubernetes PATCH request"
                + " body.");
    for (ResourceType type : registry.resources(group, version)) {
      String schemaId = schemaId(type);
      ObjectNode schema = schemas.putObject(schemaId);
      schema.put("type", "object");
      schema.put("x-kubernetes-preserve-unknown-fields", true);
      schema.putArray("x-kubernetes-group-version-kind").add(gvk(type));
      String collection =
          type.namespaced()
              ? type.versionPath() + "/namespaces/{namespace}/" + type.plural()
              : type.versionPath() + "/" + type.plural();
      // The operations of the verbs the resource serves.
      List<String> verbs = type.verbs();
      ObjectNode collectionItem = paths.putObject(collection);
      if (verbs.contains("create")) {
        collectionItem.set("post", operation(type, "post", schemaId, false));
      }
      if (verbs.contains("list")) {
        collectionItem.set("get", operation(type, "list", schemaId, false));
      }
      if (!verbs.contains("get")) {
        continue;
      }
      ObjectNode item = paths.putObject(collection + "/{name}");
      item.set("get", operation(type, "get", schemaId, false));
      if (verbs.contains("update")) {
        item.set("put", operation(type, "put", schemaId, false));
      }
      if (verbs.contains("patch")) {
        item.set("patch", operation(type, "patch", schemaId, true));
      }
      if (verbs.contains("delete")) {
        item.set("delete", operation(type, "delete", schemaId, false));
      }
    }
    return document;
  }

  private static ObjectNode operation(
      ResourceType type, String action, String schemaId, boolean patch) {
    ObjectNode operation = Json.object();
    operation.put("operationId", action + type.kind());
    operation.put("x-kubernetes-action", action);
    operation.set("x-kubernetes-group-version-kind", gvk(type));
    ArrayNode parameters = operation.putArray("parameters");
    if (!action.equals("get") && !action.equals("list") && !action.equals("delete")) {
      queryParameter(parameters, "dryRun");
      queryParameter(parameters, "fieldManager");
      queryParameter(parameters, "fieldValidation");
    }
    if (patch) {
      parameters
          .addObject()
          .put("name", "force")
          .put("in", "query")
          .putObject("schema")
          .put("type", "boolean");
      ObjectNode content =
          operation.putObject("requestBody").put("required", true).putObject("content");
      for (String mediaType :
          new String[] {Patches.JSON_PATCH, Patches.MERGE_PATCH, Patches.APPLY_PATCH}) {
        content
            .putObject(mediaType)
            .putObject("schema")
            .put("$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
      }
    } else if (action.equals("post") || action.equals("put")) {
      operation
          .putObject("requestBody")
          .put("required", true)
          .putObject("content")
          .putObject("application/json")
          .putObject("schema")
          .put("$ref", "#/components/schemas/" + schemaId);
    }
    operation
        .putObject("responses")
        .putObject("200")
        .put("description", "OK")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/" + schemaId);
    return operation;
  }

  private static void queryParameter(ArrayNode parameters, String name) {
    parameters
        .addObject()
        .put("name", name)
        .put("in", "query")
        .put("description", name)
        .putObject("schema")
        .put("type", "string")
        .put("uniqueItems", true);
  }

  private static ObjectNode gvk(ResourceType type) {
    ObjectNode gvk = Json.object();
    gvk.put("group", type.group());
    gvk.put("version", type.version());
    gvk.put("kind", type.kind());
    return gvk;
  }

  private static String schemaId(ResourceType type) {
    return "io.spinagent.testkit."
        + (type.group().isEmpty() ? "core" : type.group())
        + "."
        + type.version()
        + "."
        + type.kind();
  }

  private static String hash(ObjectNode document) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(Json.write(document).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().withUpperCase().formatHex(digest, 0, 32);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
