package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.CustomResourceConfig;
import io.spinagent.agent.config.yaml.Excerpt;
import io.spinagent.common.ClouddriverKinds;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Binds an account's custom resources: {@code customResources}, Clouddriver's account setting with
 * its fields ({@code kubernetesKind}, {@code spinnakerKind}, {@code deployPriority}, {@code
 * versioned}, {@code namespaced}), and Armory Scale Agent's {@code customResourceDefinitions}
 * ({@code kind}, {@code scope}), which the converter rewrites into the former. Values are checked
 * by Clouddriver's rules ({@link ClouddriverKinds}): a value Clouddriver would read as something
 * else, or fail on, is an error here.
 */
final class CustomResourceBinder {

  private static final String CLOUDDRIVER_KEY = "customResources";
  private static final String ARMORY_KEY = "customResourceDefinitions";

  private CustomResourceBinder() {}

  /**
   * Both forms of the account {@code a}, Clouddriver's first. A kind declared twice is an error:
   * Clouddriver cannot load an account that declares a kind twice.
   */
  static List<CustomResourceConfig> customResources(MapReader a) {
    List<CustomResourceConfig> declared = new ArrayList<>();
    addOnce(
        a,
        CLOUDDRIVER_KEY,
        a.mapList(CLOUDDRIVER_KEY, "custom resource", (cr, i) -> clouddriverForm(cr)),
        declared);
    a.armoryKey(ARMORY_KEY);
    if (!a.isSet(ARMORY_KEY)) {
      return declared;
    }
    addOnce(
        a,
        ARMORY_KEY,
        a.mapList(ARMORY_KEY, "custom resource", (crd, i) -> armoryForm(crd)),
        declared);
    a.rewriteValue(
        CLOUDDRIVER_KEY,
        declared.stream().map(CustomResourceConfig::toYaml).toList(),
        "the custom resources of customResourceDefinitions, in Clouddriver's form");
    a.rewriteRemove(
        ARMORY_KEY, "moved to customResources (kind as kubernetesKind, scope as namespaced)");
    return declared;
  }

  private static void addOnce(
      MapReader a, String key, List<CustomResourceConfig> items, List<CustomResourceConfig> into) {
    for (CustomResourceConfig item : items) {
      if (into.stream().anyMatch(d -> d.kubernetesKind().equalsIgnoreCase(item.kubernetesKind()))) {
        a.problem(
            key,
            "declares "
                + item.kubernetesKind()
                + " more than once; declare each kind once: Clouddriver cannot load an account"
                + " that declares a kind twice");
      } else {
        into.add(item);
      }
    }
  }

  /**
   * Warns that Armory's custom resources without {@code kinds} do not limit what is watched: every
   * kind is, custom resources among them. (With {@code kinds}, the account adds the custom
   * resources' kinds to it.)
   */
  static void warnUnlimitedKinds(MapReader a, List<String> kinds) {
    if (kinds.isEmpty() && a.isSet(ARMORY_KEY)) {
      a.warn(
          ARMORY_KEY,
          "without kinds, SpinAgent watches every custom resource the credentials may list,"
              + " not only these; to watch only some kinds, list them all in kinds");
    }
  }

  private static CustomResourceConfig clouddriverForm(MapReader cr) {
    Optional<String> kind = kind(cr, "kubernetesKind");
    Optional<String> spinnakerKind = spinnakerKind(cr);
    Optional<String> priority = deployPriority(cr);
    Optional<Boolean> versioned = cr.optionalBool("versioned");
    Optional<Boolean> namespaced = cr.optionalBool("namespaced");
    return kind.map(
            k -> new CustomResourceConfig(k, spinnakerKind, priority, versioned, namespaced))
        .orElse(null);
  }

  /**
   * Armory's item: {@code kind} and {@code scope} (Cluster or Namespaced), and the Clouddriver
   * fields Armory's form has no word for ({@code spinnakerKind}, {@code deployPriority}, {@code
   * versioned}).
   */
  private static CustomResourceConfig armoryForm(MapReader crd) {
    Optional<String> kind = kind(crd, "kind");
    Optional<Boolean> namespaced = Optional.empty();
    Optional<String> scope = crd.string("scope");
    if (scope.isPresent()) {
      switch (scope.get().toLowerCase(Locale.ROOT)) {
        case "namespaced" -> namespaced = Optional.of(true);
        case "cluster" -> namespaced = Optional.of(false);
        default ->
            crd.problem("scope", "expected Cluster or Namespaced, got '" + scope.get() + "'");
      }
    }
    Optional<String> spinnakerKind = spinnakerKind(crd);
    Optional<String> priority = deployPriority(crd);
    Optional<Boolean> versioned = crd.optionalBool("versioned");
    Optional<Boolean> scoped = namespaced;
    return kind.map(k -> new CustomResourceConfig(k, spinnakerKind, priority, versioned, scoped))
        .orElse(null);
  }

  private static Optional<String> kind(MapReader item, String key) {
    if (!item.isSet(key)) {
      item.problem(key, "is required: the custom resource's Kind.group, e.g. Rollout.argoproj.io");
      return Optional.empty();
    }
    Optional<String> kind = item.string(key);
    if (kind.isPresent() && AccountBinder.kindProblem(kind.get()) != null) {
      item.problem(key, AccountBinder.kindProblem(kind.get()));
      return Optional.empty();
    }
    return kind;
  }

  /** Clouddriver's spelling of the Spinnaker kind written, which it compares ignoring case. */
  private static Optional<String> spinnakerKind(MapReader item) {
    Optional<String> written = item.string("spinnakerKind");
    if (written.isEmpty()) {
      return written;
    }
    Optional<String> known = ClouddriverKinds.spinnakerKind(written.get());
    if (known.isEmpty()) {
      item.problem(
          "spinnakerKind",
          Excerpt.quoted(written.get())
              + " is not one of Clouddriver's Spinnaker kinds "
              + ClouddriverKinds.SPINNAKER_KINDS
              + " (Clouddriver would take it for unclassified)");
    }
    return known;
  }

  private static Optional<String> deployPriority(MapReader item) {
    Optional<String> written = item.string("deployPriority");
    if (written.isPresent() && !ClouddriverKinds.isDeployPriority(written.get())) {
      item.problem(
          "deployPriority",
          Excerpt.quoted(written.get())
              + " is not a deploy priority: write a whole number (Clouddriver's default is 100)"
              + " or one of Clouddriver's names, e.g. WORKLOAD_CONTROLLER_PRIORITY; Clouddriver"
              + " cannot load an account with any other");
      return Optional.empty();
    }
    return written;
  }
}
