package io.spinagent.testkit.kubernetes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which resources exist right now: the built-ins plus whatever CustomResourceDefinitions have been
 * created. Discovery, OpenAPI, URL resolution and the store all ask this one registry, so a CRD
 * appears (and disappears) everywhere at the same moment.
 */
public final class ResourceTypeRegistry {

  /**
   * group -> version -> plural -> type; groups keep registration order, as discovery lists them.
   */
  private final Map<String, Map<String, Map<String, ResourceType>>> groups = new LinkedHashMap<>();

  /**
   * @param metricsApi whether the resource metrics API is served, as with metrics-server installed
   */
  ResourceTypeRegistry(boolean metricsApi) {
    BuiltInResourceTypes.all().forEach(this::register);
    if (metricsApi) {
      BuiltInResourceTypes.metrics().forEach(this::register);
    }
  }

  synchronized void register(ResourceType type) {
    groups
        .computeIfAbsent(type.group(), g -> new TreeMap<>(VERSION_PRIORITY))
        .computeIfAbsent(type.version(), v -> new TreeMap<>())
        .put(type.plural(), type);
  }

  /**
   * Registers the served versions of a CRD, replacing what an earlier revision of it registered.
   */
  synchronized List<ResourceType> registerCustomResourceDefinition(
      String crdName, List<ResourceType> types) {
    unregisterCustomResourceDefinition(crdName);
    types.forEach(this::register);
    return types;
  }

  synchronized List<ResourceType> unregisterCustomResourceDefinition(String crdName) {
    List<ResourceType> removed = new ArrayList<>();
    for (var groupIt = groups.entrySet().iterator(); groupIt.hasNext(); ) {
      var versions = groupIt.next().getValue();
      for (var versionIt = versions.entrySet().iterator(); versionIt.hasNext(); ) {
        var resources = versionIt.next().getValue();
        resources
            .values()
            .removeIf(
                type -> {
                  boolean match = crdName.equals(type.crdName());
                  if (match) {
                    removed.add(type);
                  }
                  return match;
                });
        if (resources.isEmpty()) {
          versionIt.remove();
        }
      }
      if (versions.isEmpty()) {
        groupIt.remove();
      }
    }
    return removed;
  }

  public synchronized Optional<ResourceType> find(String group, String version, String plural) {
    return Optional.ofNullable(
        groups.getOrDefault(group, Map.of()).getOrDefault(version, Map.of()).get(plural));
  }

  /**
   * Resolves an object's apiVersion and kind, as needed when a caller hands us a whole manifest.
   */
  public synchronized Optional<ResourceType> findByKind(String apiVersion, String kind) {
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    String version =
        apiVersion.contains("/") ? apiVersion.substring(apiVersion.indexOf('/') + 1) : apiVersion;
    return groups.getOrDefault(group, Map.of()).getOrDefault(version, Map.of()).values().stream()
        .filter(type -> type.kind().equals(kind))
        .findFirst();
  }

  synchronized boolean hasGroupVersion(String group, String version) {
    return groups.getOrDefault(group, Map.of()).containsKey(version);
  }

  synchronized List<String> groupNames() {
    return groups.keySet().stream().filter(g -> !g.isEmpty()).toList();
  }

  /** Versions of a group, preferred (highest priority) first. */
  synchronized List<String> versions(String group) {
    return List.copyOf(groups.getOrDefault(group, Map.of()).keySet());
  }

  synchronized List<ResourceType> resources(String group, String version) {
    return List.copyOf(
        groups.getOrDefault(group, Map.of()).getOrDefault(version, Map.of()).values());
  }

  synchronized List<ResourceType> allTypes() {
    List<ResourceType> all = new ArrayList<>();
    groups
        .values()
        .forEach(
            versions -> versions.values().forEach(resources -> all.addAll(resources.values())));
    return all;
  }

  private static final Pattern KUBE_VERSION = Pattern.compile("v(\\d+)(?:(alpha|beta)(\\d+))?");

  /**
   * Kubernetes' version priority: GA before beta before alpha, higher numbers first, anything that
   * does not look like a Kubernetes version last in alphabetical order. It picks the preferred
   * version.
   */
  static final Comparator<String> VERSION_PRIORITY =
      (a, b) -> {
        Matcher ma = KUBE_VERSION.matcher(a);
        Matcher mb = KUBE_VERSION.matcher(b);
        boolean ka = ma.matches();
        boolean kb = mb.matches();
        if (ka != kb) {
          return ka ? -1 : 1;
        }
        if (!ka) {
          return a.compareTo(b);
        }
        int stabilityA = stability(ma.group(2));
        int stabilityB = stability(mb.group(2));
        if (stabilityA != stabilityB) {
          return Integer.compare(stabilityB, stabilityA);
        }
        int major = Integer.compare(Integer.parseInt(mb.group(1)), Integer.parseInt(ma.group(1)));
        if (major != 0) {
          return major;
        }
        int minorA = ma.group(3) == null ? 0 : Integer.parseInt(ma.group(3));
        int minorB = mb.group(3) == null ? 0 : Integer.parseInt(mb.group(3));
        return Integer.compare(minorB, minorA);
      };

  private static int stability(String qualifier) {
    if (qualifier == null) {
      return 2;
    }
    return "beta".equals(qualifier) ? 1 : 0;
  }
}
