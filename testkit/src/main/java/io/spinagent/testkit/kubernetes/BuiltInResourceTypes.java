package io.spinagent.testkit.kubernetes;

import java.util.ArrayList;
import java.util.List;

/**
 * The built-in resources the test server serves out of the box: what the agent watches and what
 * Clouddriver's Kubernetes provider deploys, plus the handful of resources kubectl and client-java
 * touch on their own (namespaces, SelfSubjectAccessReview, CustomResourceDefinitions). Names,
 * scopes, short names and categories follow a v1.29 API server's discovery so kubectl resolves
 * "deploy", "svc", etc.
 */
final class BuiltInResourceTypes {

  private BuiltInResourceTypes() {}

  static List<ResourceType> all() {
    List<ResourceType> types = new ArrayList<>();
    // core/v1
    types.add(cluster("", "v1", "Namespace", "namespaces", List.of("ns"), true));
    types.add(ns("", "v1", "Pod", "pods", List.of("po"), List.of("all"), true, null));
    types.add(ns("", "v1", "Service", "services", List.of("svc"), List.of("all"), true, null));
    types.add(ns("", "v1", "ConfigMap", "configmaps", List.of("cm"), List.of(), false, null));
    types.add(ns("", "v1", "Secret", "secrets", List.of(), List.of(), false, null));
    types.add(
        ns("", "v1", "ServiceAccount", "serviceaccounts", List.of("sa"), List.of(), false, null));
    types.add(ns("", "v1", "Event", "events", List.of("ev"), List.of(), false, null));
    types.add(ns("", "v1", "Endpoints", "endpoints", List.of("ep"), List.of(), false, null));
    types.add(
        ns(
            "",
            "v1",
            "PersistentVolumeClaim",
            "persistentvolumeclaims",
            List.of("pvc"),
            List.of(),
            true,
            null));
    types.add(ns("", "v1", "LimitRange", "limitranges", List.of("limits"), List.of(), false, null));
    types.add(
        ns("", "v1", "ResourceQuota", "resourcequotas", List.of("quota"), List.of(), true, null));
    types.add(
        ns(
            "",
            "v1",
            "ReplicationController",
            "replicationcontrollers",
            List.of("rc"),
            List.of("all"),
            true,
            new ResourceType.Scale(".spec.replicas", ".status.replicas", ".status.selector")));
    types.add(cluster("", "v1", "Node", "nodes", List.of("no"), true));
    types.add(cluster("", "v1", "PersistentVolume", "persistentvolumes", List.of("pv"), true));
    // apps/v1
    types.add(
        ns(
            "apps",
            "v1",
            "Deployment",
            "deployments",
            List.of("deploy"),
            List.of("all"),
            true,
            ResourceType.Scale.WORKLOAD));
    types.add(
        ns(
            "apps",
            "v1",
            "ReplicaSet",
            "replicasets",
            List.of("rs"),
            List.of("all"),
            true,
            ResourceType.Scale.WORKLOAD));
    types.add(
        ns(
            "apps",
            "v1",
            "StatefulSet",
            "statefulsets",
            List.of("sts"),
            List.of("all"),
            true,
            ResourceType.Scale.WORKLOAD));
    types.add(
        ns("apps", "v1", "DaemonSet", "daemonsets", List.of("ds"), List.of("all"), true, null));
    types.add(
        ns(
            "apps",
            "v1",
            "ControllerRevision",
            "controllerrevisions",
            List.of(),
            List.of(),
            false,
            null));
    // batch/v1
    types.add(ns("batch", "v1", "Job", "jobs", List.of(), List.of("all"), true, null));
    types.add(ns("batch", "v1", "CronJob", "cronjobs", List.of("cj"), List.of("all"), true, null));
    // autoscaling: v2 is preferred, v1 is still served (and names the Scale kind's group).
    types.add(
        ns(
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
            List.of("hpa"),
            List.of("all"),
            true,
            null));
    types.add(
        ns(
            "autoscaling",
            "v1",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
            List.of("hpa"),
            List.of("all"),
            true,
            null));
    // networking.k8s.io/v1
    types.add(
        ns(
            "networking.k8s.io",
            "v1",
            "Ingress",
            "ingresses",
            List.of("ing"),
            List.of(),
            true,
            null));
    types.add(
        ns(
            "networking.k8s.io",
            "v1",
            "NetworkPolicy",
            "networkpolicies",
            List.of("netpol"),
            List.of(),
            false,
            null));
    types.add(
        cluster("networking.k8s.io", "v1", "IngressClass", "ingressclasses", List.of(), false));
    // policy/v1
    types.add(
        ns(
            "policy",
            "v1",
            "PodDisruptionBudget",
            "poddisruptionbudgets",
            List.of("pdb"),
            List.of(),
            true,
            null));
    // rbac.authorization.k8s.io/v1
    types.add(
        ns("rbac.authorization.k8s.io", "v1", "Role", "roles", List.of(), List.of(), false, null));
    types.add(
        ns(
            "rbac.authorization.k8s.io",
            "v1",
            "RoleBinding",
            "rolebindings",
            List.of(),
            List.of(),
            false,
            null));
    types.add(
        cluster(
            "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", List.of(), false));
    types.add(
        cluster(
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRoleBinding",
            "clusterrolebindings",
            List.of(),
            false));
    // storage.k8s.io/v1
    types.add(
        cluster("storage.k8s.io", "v1", "StorageClass", "storageclasses", List.of("sc"), false));
    // coordination.k8s.io/v1 (leader election) and discovery.k8s.io/v1
    types.add(
        ns("coordination.k8s.io", "v1", "Lease", "leases", List.of(), List.of(), false, null));
    types.add(
        ns(
            "discovery.k8s.io",
            "v1",
            "EndpointSlice",
            "endpointslices",
            List.of(),
            List.of(),
            false,
            null));
    // apiextensions.k8s.io/v1: creating one of these registers a new resource type.
    types.add(
        new ResourceType(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            "customresourcedefinition",
            false,
            List.of("crd", "crds"),
            List.of("api-extensions"),
            true,
            null,
            ResourceType.Serving.STORED,
            null));
    // authorization.k8s.io/v1: answered by AccessControl, never stored.
    types.add(
        new ResourceType(
            "authorization.k8s.io",
            "v1",
            "SelfSubjectAccessReview",
            "selfsubjectaccessreviews",
            "selfsubjectaccessreview",
            false,
            List.of(),
            List.of(),
            false,
            null,
            ResourceType.Serving.ACCESS_REVIEW,
            null));
    return types;
  }

  /**
   * metrics.k8s.io/v1beta1 as metrics-server serves it (resources {@code pods} and {@code nodes},
   * kinds PodMetrics and NodeMetrics, an empty singular name, get and list only): what {@code
   * kubectl top} reads.
   */
  static List<ResourceType> metrics() {
    return List.of(
        new ResourceType(
            ResourceMetrics.GROUP,
            ResourceMetrics.VERSION,
            "NodeMetrics",
            "nodes",
            "",
            false,
            List.of(),
            List.of(),
            false,
            null,
            ResourceType.Serving.METRICS,
            null),
        new ResourceType(
            ResourceMetrics.GROUP,
            ResourceMetrics.VERSION,
            "PodMetrics",
            "pods",
            "",
            true,
            List.of(),
            List.of(),
            false,
            null,
            ResourceType.Serving.METRICS,
            null));
  }

  private static ResourceType ns(
      String group,
      String version,
      String kind,
      String plural,
      List<String> shortNames,
      List<String> categories,
      boolean status,
      ResourceType.Scale scale) {
    return new ResourceType(
        group,
        version,
        kind,
        plural,
        null,
        true,
        shortNames,
        categories,
        status,
        scale,
        ResourceType.Serving.STORED,
        null);
  }

  private static ResourceType cluster(
      String group,
      String version,
      String kind,
      String plural,
      List<String> shortNames,
      boolean status) {
    return new ResourceType(
        group,
        version,
        kind,
        plural,
        null,
        false,
        shortNames,
        List.of(),
        status,
        null,
        ResourceType.Serving.STORED,
        null);
  }
}
