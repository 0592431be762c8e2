package io.spinagent.testkit.kubernetes;

import java.util.ArrayList;
import java.util.List;

/**
 * The resource a URL addresses, resolved against the registry: {@code
 * .../[watch/][namespaces/{ns}/]{plural}[/{name}[/{subresource}]]}.
 *
 * @param namespace null for cluster-wide requests
 * @param name null for collection requests
 * @param subresource null, "status", "scale" or (pods) "log"
 * @param legacyWatch true for the deprecated {@code /watch/} URL form
 */
record ResourcePath(
    ResourceType type, String namespace, String name, String subresource, boolean legacyWatch) {

  static ResourcePath parse(
      ResourceTypeRegistry registry, String group, String version, List<String> segments) {
    List<String> rest = new ArrayList<>(segments);
    boolean legacyWatch = false;
    if (!rest.isEmpty() && rest.get(0).equals("watch")) {
      legacyWatch = true;
      rest.remove(0);
    }
    String namespace = null;
    boolean namespaceSubresource =
        rest.size() == 3
            && rest.get(0).equals("namespaces")
            && (rest.get(2).equals("status") || rest.get(2).equals("finalize"));
    if (rest.size() >= 3 && rest.get(0).equals("namespaces") && !namespaceSubresource) {
      namespace = rest.get(1);
      rest = rest.subList(2, rest.size());
    }
    if (rest.isEmpty() || rest.size() > 3) {
      throw ApiError.notFoundPath();
    }
    String plural = rest.get(0);
    String name = rest.size() > 1 ? rest.get(1) : null;
    String subresource = rest.size() > 2 ? rest.get(2) : null;
    ResourceType type = registry.find(group, version, plural).orElseThrow(ApiError::notFoundPath);
    if (type.namespaced() && namespace == null && name != null) {
      throw ApiError.notFoundPath();
    }
    if (!type.namespaced() && namespace != null) {
      throw ApiError.notFoundPath();
    }
    if (subresource != null
        && !(subresource.equals("status") && type.statusSubresource())
        && !(subresource.equals("scale") && type.scale() != null)
        && !(subresource.equals("log") && type.group().isEmpty() && type.plural().equals("pods"))) {
      throw ApiError.notFoundPath();
    }
    return new ResourcePath(type, namespace, name, subresource, legacyWatch);
  }
}
