package io.spinagent.agent.cluster;

import io.spinagent.protocol.v1.Kind;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One served resource found by discovery: group/version/resource, its kind and scope, and the verbs
 * the API server accepts for it.
 */
public record ApiResource(
    String group,
    String version,
    String kind,
    String plural,
    boolean namespaced,
    List<String> verbs) {

  /** API groups that belong to Kubernetes itself even though their names have no dot. */
  private static final Set<String> BUILT_IN_PLAIN_GROUPS =
      Set.of("", "apps", "batch", "autoscaling", "policy", "extensions");

  public ApiResource {
    verbs = List.copyOf(verbs);
  }

  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** {@code Deployment.apps}, or {@code Pod} for the core group. */
  public String qualifiedKind() {
    return group.isEmpty() ? kind : kind + "." + group;
  }

  public boolean isSecret() {
    return group.isEmpty() && "Secret".equals(kind);
  }

  public boolean isCustomResourceDefinition() {
    return "apiextensions.k8s.io".equals(group) && "CustomResourceDefinition".equals(kind);
  }

  /**
   * Whether this is a custom resource (served because of a CustomResourceDefinition): its group is
   * not one of Kubernetes' own. CRD groups must contain a dot, and the {@code *.k8s.io} and {@code
   * *.kubernetes.io} groups are reserved for Kubernetes.
   */
  public boolean isCustom() {
    if (BUILT_IN_PLAIN_GROUPS.contains(group)) {
      return false;
    }
    String g = group.toLowerCase(Locale.ROOT);
    return g.contains(".")
        && !g.endsWith(".k8s.io")
        && !g.equals("k8s.io")
        && !g.endsWith(".kubernetes.io");
  }

  /** The API path of the collection, in {@code namespace} or across the cluster when it is null. */
  public String collectionPath(String namespace) {
    String base = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    return namespace == null
        ? base + "/" + plural
        : base + "/namespaces/" + namespace + "/" + plural;
  }

  public Kind toKind() {
    return Kind.newBuilder()
        .setGroup(group)
        .setVersion(version)
        .setKind(kind)
        .setPlural(plural)
        .setNamespaced(namespaced)
        .build();
  }

  @Override
  public String toString() {
    return plural + (group.isEmpty() ? "" : "." + group) + "/" + version;
  }
}
