package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The legacy (unaggregated) discovery documents: /api, /api/v1, /apis, /apis/{group},
 * /apis/{group}/{version}. Aggregated discovery (apidiscovery.k8s.io/v2) is deliberately not
 * produced: clients that ask for it also accept plain application/json and then fall back to these
 * documents (client-go checks the response Content-Type), which kubectl 1.32 is verified to do in
 * the tests.
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
