package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The discovery documents: the legacy ones (/api, /api/v1, /apis, /apis/{group},
 * /apis/{group}/{version}) and, for clients whose Accept header asks for it, aggregated discovery
 * ({@code APIGroupDiscoveryList} of apidiscovery.k8s.io v2 or v2beta1) at /api and /apis, as API
 * servers serve it since 1.27 (beta) and 1.30 (GA). Clients tell which they got from the response's
 * Content-Type.
 */
final class DiscoveryDocument {

  private final ResourceTypeRegistry registry;

  DiscoveryDocument(ResourceTypeRegistry registry) {
    this.registry = registry;
  }

  ObjectNode apiVersions(String serverAddress) {
    ObjectNode versions = Json.object();
    versions.put("kind", "APIVersions");
    versions.putArray("versions").add("v1");
    versions
        .putArray("serverAddressByClientCIDRs")
        .addObject()
        .put("clientCIDR", "0.0.0.0/0")
        .put("serverAddress", serverAddress);
    return versions;
  }

  ObjectNode apiGroupList() {
    ObjectNode list = Json.object();
    list.put("kind", "APIGroupList");
    list.put("apiVersion", "v1");
    ArrayNode groups = list.putArray("groups");
    for (String group : registry.groupNames()) {
      groups.add(apiGroupBody(group, registry.versions(group)));
    }
    return list;
  }

  ObjectNode apiGroup(String group) {
    List<String> versions = registry.versions(group);
    if (group.isEmpty() || versions.isEmpty()) {
      throw ApiError.notFoundPath();
    }
    ObjectNode body = apiGroupBody(group, versions);
    body.put("kind", "APIGroup");
    body.put("apiVersion", "v1");
    return body;
  }

  private static ObjectNode apiGroupBody(String group, List<String> versions) {
    ObjectNode body = Json.object();
    body.put("name", group);
    ArrayNode list = body.putArray("versions");
    for (String version : versions) {
      list.addObject().put("groupVersion", group + "/" + version).put("version", version);
    }
    body.putObject("preferredVersion")
        .put("groupVersion", group + "/" + versions.get(0))
        .put("version", versions.get(0));
    return body;
  }

  /**
   * The aggregated discovery version the Accept header asks for (v2 before v2beta1), or empty when
   * it asks for neither.
   */
  static Optional<String> aggregatedVersion(String accept) {
    if (accept == null) {
      return Optional.empty();
    }
    for (String version : List.of("v2", "v2beta1")) {
      for (String range : accept.split(",", 0)) {
        List<String> params =
            Arrays.stream(range.split(";")).map(p -> p.trim().replace(" ", "")).toList();
        if (params.contains("g=apidiscovery.k8s.io")
            && params.contains("v=" + version)
            && params.contains("as=APIGroupDiscoveryList")) {
          return Optional.of(version);
        }
      }
    }
    return Optional.empty();
  }

  static String aggregatedContentType(String version) {
    return "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList";
  }

  /**
   * Every group with all its versions and resources in one document: the core group alone for
   * {@code /api} ({@code core} true), the named groups for {@code /apis}.
   */
  ObjectNode aggregated(boolean core, String discoveryVersion) {
    ObjectNode list = Json.object();
    list.put("kind", "APIGroupDiscoveryList");
    list.put("apiVersion", "apidiscovery.k8s.io/" + discoveryVersion);
    list.putObject("metadata");
    ArrayNode items = list.putArray("items");
    List<String> groups = core ? List.of("") : registry.groupNames();
    for (String group : groups) {
      ObjectNode item = items.addObject();
      ObjectNode metadata = item.putObject("metadata");
      if (!group.isEmpty()) {
        metadata.put("name", group);
      }
      ArrayNode versions = item.putArray("versions");
      for (String version : core ? List.of("v1") : registry.versions(group)) {
        ObjectNode entry = versions.addObject();
        entry.put("version", version);
        ArrayNode resources = entry.putArray("resources");
        for (ResourceType type : registry.resources(group, version)) {
          resources.add(aggregatedResource(type));
        }
        entry.put("freshness", "Current");
      }
    }
    return list;
  }

  private static ObjectNode aggregatedResource(ResourceType type) {
    ObjectNode resource = Json.object();
    resource.put("resource", type.plural());
    responseKind(resource, type.group(), type.version(), type.kind());
    resource.put("scope", type.namespaced() ? "Namespaced" : "Cluster");
    resource.put("singularResource", type.singular());
    verbsAndNames(resource, type);
    ArrayNode subresources = resource.putArray("subresources");
    if (type.statusSubresource()) {
      ObjectNode status = subresources.addObject();
      status.put("subresource", "status");
      responseKind(status, type.group(), type.version(), type.kind());
      status.putArray("verbs").add("get").add("patch").add("update");
    }
    if (type.scale() != null) {
      ObjectNode scale = subresources.addObject();
      scale.put("subresource", "scale");
      responseKind(scale, "autoscaling", "v1", "Scale");
      scale.putArray("verbs").add("get").add("patch").add("update");
    }
    if (subresources.isEmpty()) {
      resource.remove("subresources");
    }
    return resource;
  }

  /** A resource's verbs, short names and categories, alike in both forms of discovery. */
  private static void verbsAndNames(ObjectNode resource, ResourceType type) {
    ArrayNode verbs = resource.putArray("verbs");
    type.verbs().forEach(verbs::add);
    if (!type.shortNames().isEmpty()) {
      ArrayNode shortNames = resource.putArray("shortNames");
      type.shortNames().forEach(shortNames::add);
    }
    if (!type.categories().isEmpty()) {
      ArrayNode categories = resource.putArray("categories");
      type.categories().forEach(categories::add);
    }
  }

  private static void responseKind(ObjectNode into, String group, String version, String kind) {
    into.putObject("responseKind").put("group", group).put("version", version).put("kind", kind);
  }

  ObjectNode apiResourceList(String group, String version) {
    List<ResourceType> types = registry.resources(group, version);
    if (types.isEmpty()) {
      throw ApiError.notFoundPath();
    }
    ObjectNode list = Json.object();
    list.put("kind", "APIResourceList");
    list.put("apiVersion", "v1");
    list.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode resources = list.putArray("resources");
    for (ResourceType type : types) {
      ObjectNode resource = resources.addObject();
      resource.put("name", type.plural());
      resource.put("singularName", type.singular());
      resource.put("namespaced", type.namespaced());
      resource.put("kind", type.kind());
      verbsAndNames(resource, type);
      if (type.statusSubresource()) {
        ObjectNode status = resources.addObject();
        status.put("name", type.plural() + "/status");
        status.put("singularName", "");
        status.put("namespaced", type.namespaced());
        status.put("kind", type.kind());
        status.putArray("verbs").add("get").add("patch").add("update");
      }
      if (type.scale() != null) {
        ObjectNode scale = resources.addObject();
        scale.put("name", type.plural() + "/scale");
        scale.put("singularName", "");
        scale.put("namespaced", type.namespaced());
        scale.put("group", "autoscaling");
        scale.put("version", "v1");
        scale.put("kind", "Scale");
        scale.putArray("verbs").add("get").add("patch").add("update");
      }
    }
    return list;
  }
}
