package io.spinagent.testkit.kubernetes;

import java.util.List;
import java.util.Locale;

/**
 * One resource as discovery describes it: group/version/kind, the plural used in URLs, scope and
 * verbs. Objects are stored per group and plural (not per version), so a CRD served at several
 * versions, or a built-in served at several versions, shares one set of objects, as in a real
 * cluster.
 *
 * @param crdName name of the CustomResourceDefinition that declared this type, null for built-ins
 * @param serving whether objects are kept, or answered without being kept (SelfSubjectAccessReview,
 *     the metrics API)
 */
public record ResourceType(
    String group,
    String version,
    String kind,
    String plural,
    String singular,
    boolean namespaced,
    List<String> shortNames,
    List<String> categories,
    boolean statusSubresource,
    Scale scale,
    Serving serving,
    String crdName) {

  static final List<String> ALL_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  /** How requests for a resource are answered. */
  public enum Serving {
    /** Objects kept in the store: every verb. */
    STORED,
    /** Answered from the caller's rule and never kept (SelfSubjectAccessReview): create only. */
    ACCESS_REVIEW,
    /** Computed from the stored Pods and Nodes (metrics.k8s.io, as metrics-server serves it). */
    METRICS;

    List<String> verbs() {
      return switch (this) {
        case STORED -> ALL_VERBS;
        case ACCESS_REVIEW -> List.of("create");
        case METRICS -> List.of("get", "list");
      };
    }
  }

  /** Where the scale subresource finds replicas and selector; JSON paths relative to the object. */
  public record Scale(
      String specReplicasPath, String statusReplicasPath, String labelSelectorPath) {
    static final Scale WORKLOAD =
        new Scale(".spec.replicas", ".status.replicas", ".status.selector");
  }

  public ResourceType {
    shortNames = shortNames == null ? List.of() : List.copyOf(shortNames);
    categories = categories == null ? List.of() : List.copyOf(categories);
    // Built-ins name no singular (null): discovery shows the kind in lower case, as API servers
    // do. An empty one stays empty, as metrics-server's resources have it.
    if (singular == null) {
      singular = kind.toLowerCase(Locale.ROOT);
    }
  }

  public String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  public String apiVersion() {
    return groupVersion();
  }

  public String listKind() {
    return kind + "List";
  }

  /** "deployments.apps" style, as used in error messages and RBAC. */
  public String groupResource() {
    return group.isEmpty() ? plural : plural + "." + group;
  }

  /** URL prefix of this type's group version: /api/v1 or /apis/{group}/{version}. */
  public String versionPath() {
    return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
  }

  public String collectionPath(String namespace) {
    if (namespaced && namespace != null && !namespace.isEmpty()) {
      return versionPath() + "/namespaces/" + namespace + "/" + plural;
    }
    return versionPath() + "/" + plural;
  }

  public String objectPath(String namespace, String name) {
    return collectionPath(namespace) + "/" + name;
  }

  /** Whether objects of this type are kept in the store (the other verbs depend on it). */
  public boolean stored() {
    return serving == Serving.STORED;
  }

  public List<String> verbs() {
    return serving.verbs();
  }

  /** The same resource at another version (CRDs and multi-version built-ins). */
  ResourceType atVersion(String otherVersion) {
    return new ResourceType(
        group,
        otherVersion,
        kind,
        plural,
        singular,
        namespaced,
        shortNames,
        categories,
        statusSubresource,
        scale,
        serving,
        crdName);
  }
}
