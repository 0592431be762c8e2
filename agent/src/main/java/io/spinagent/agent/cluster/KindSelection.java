package io.spinagent.agent.cluster;

import io.spinagent.agent.config.KubernetesAccountConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which discovered resources an account watches, from {@code kinds}, {@code omitKinds} and {@code
 * onlyNamespacedResources}:
 *
 * <ul>
 *   <li>{@code kinds} set: exactly those kinds ({@code Kind} matches the kind in any group, {@code
 *       Kind.group} only in that group);
 *   <li>otherwise the default set, {@link #DEFAULT_KINDS} (the kinds Spinnaker's Kubernetes
 *       provider caches) plus every custom resource, minus {@code omitKinds}. Secrets and
 *       ConfigMaps are watched only when listed in {@code kinds}.
 * </ul>
 *
 * <p>Only resources that can be listed and watched are candidates; where two groups serve the same
 * resource (e.g. {@code events} in the core group and {@code events.k8s.io}) both are kept only
 * when asked for explicitly.
 */
final class KindSelection {

  static final Set<String> DEFAULT_KINDS =
      Set.of(
          "ReplicaSet",
          "Service",
          "Ingress",
          "DaemonSet",
          "Deployment",
          "Pod",
          "StatefulSet",
          "Job",
          "CronJob",
          "NetworkPolicy",
          "Namespace",
          "CustomResourceDefinition");

  private KindSelection() {}

  static List<ApiResource> select(List<ApiResource> discovered, KubernetesAccountConfig account) {
    Map<String, ApiResource> selected = new LinkedHashMap<>();
    for (ApiResource resource : discovered) {
      if (!resource.verbs().contains("list") || !resource.verbs().contains("watch")) {
        continue;
      }
      if (account.onlyNamespacedResources() && !resource.namespaced()) {
        continue;
      }
      boolean wanted;
      if (!account.kinds().isEmpty()) {
        wanted = matchesAny(resource, account.kinds());
      } else {
        wanted =
            (resource.isCustom()
                    || (DEFAULT_KINDS.contains(resource.kind()) && !resource.isCustom()))
                && !matchesAny(resource, account.omitKinds());
      }
      if (wanted) {
        // One resource per group and plural: discovery lists each group once, at its preferred
        // version.
        selected.putIfAbsent(resource.group() + "/" + resource.plural(), resource);
      }
    }
    return new ArrayList<>(selected.values());
  }

  static boolean matchesAny(ApiResource resource, List<String> kinds) {
    for (String kind : kinds) {
      if (matches(resource, kind)) {
        return true;
      }
    }
    return false;
  }

  /** {@code Deployment} or {@code Deployment.apps}; kind names compare ignoring case. */
  static boolean matches(ApiResource resource, String kind) {
    int dot = kind.indexOf('.');
    String name = dot < 0 ? kind : kind.substring(0, dot);
    if (!name.equalsIgnoreCase(resource.kind())) {
      return false;
    }
    return dot < 0 || kind.substring(dot + 1).toLowerCase(Locale.ROOT).equals(resource.group());
  }
}
