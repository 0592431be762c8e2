package io.spinagent.plugin.accounts;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.spinagent.common.ClouddriverKinds;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One item of Clouddriver's Kubernetes account setting {@code customResources} ({@code
 * KubernetesAccountProperties.ManagedAccount}): a custom resource kind with its Spinnaker kind, as
 * an account's agent reports it or a dynamic account's definition carries it. A field left null is
 * left out of the Clouddriver definition, so Clouddriver applies its default.
 *
 * @param kubernetesKind {@code Kind.group}, e.g. {@code Rollout.argoproj.io}; required
 * @param spinnakerKind one of Clouddriver's Spinnaker kinds (default {@code unclassified})
 * @param deployPriority a whole number or one of Clouddriver's priority names (default 100)
 * @param versioned deployed with a version suffix (default false)
 * @param namespaced whether objects of the kind live in namespaces (default true)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CustomResource(
    String kubernetesKind,
    String spinnakerKind,
    String deployPriority,
    Boolean versioned,
    Boolean namespaced) {

  /** As an agent reports it; empty strings and absent booleans are Clouddriver's defaults. */
  public static CustomResource of(io.spinagent.protocol.v1.CustomResource reported) {
    return new CustomResource(
        reported.getKubernetesKind(),
        reported.getSpinnakerKind().isEmpty() ? null : reported.getSpinnakerKind(),
        reported.getDeployPriority().isEmpty() ? null : reported.getDeployPriority(),
        reported.hasVersioned() ? reported.getVersioned() : null,
        reported.hasNamespaced() ? reported.getNamespaced() : null);
  }

  /**
   * An item of {@code customResources} in a Clouddriver definition read as JSON fields; null when
   * it is not a map.
   */
  static CustomResource ofDefinition(Object item) {
    if (!(item instanceof Map<?, ?> fields)) {
      return null;
    }
    return new CustomResource(
        text(fields.get("kubernetesKind")),
        text(fields.get("spinnakerKind")),
        text(fields.get("deployPriority")),
        fields.get("versioned") instanceof Boolean b ? b : null,
        fields.get("namespaced") instanceof Boolean b ? b : null);
  }

  /**
   * What is wrong with this item by Clouddriver's rules, naming the field after {@code where} (e.g.
   * {@code customResources[0].}); empty when nothing is. Clouddriver reads an unknown Spinnaker
   * kind as {@code unclassified} without a word, and cannot load an account whose deploy priority
   * it cannot read, so both are refused before they reach its account storage.
   */
  public Optional<String> problem(String where) {
    if (kubernetesKind == null || kubernetesKind.isBlank()) {
      return Optional.of(
          where + "kubernetesKind: required, the kind as Kind.group, e.g. Rollout.argoproj.io");
    }
    if (!ClouddriverKinds.isKubernetesKind(kubernetesKind)) {
      return Optional.of(
          where
              + "kubernetesKind: '"
              + kubernetesKind
              + "' is not a kind: write Kind.group, e.g. Rollout.argoproj.io");
    }
    if (spinnakerKind != null && ClouddriverKinds.spinnakerKind(spinnakerKind).isEmpty()) {
      return Optional.of(
          where
              + "spinnakerKind: '"
              + spinnakerKind
              + "' is not one of Clouddriver's Spinnaker kinds "
              + ClouddriverKinds.SPINNAKER_KINDS);
    }
    if (deployPriority != null && !ClouddriverKinds.isDeployPriority(deployPriority)) {
      return Optional.of(
          where
              + "deployPriority: '"
              + deployPriority
              + "' is neither a whole number nor one of Clouddriver's priority names, e.g."
              + " WORKLOAD_CONTROLLER_PRIORITY");
    }
    return Optional.empty();
  }

  /**
   * The item as Clouddriver's definition carries it: the fields that are set, the Spinnaker kind in
   * Clouddriver's spelling (which Deck compares exactly).
   */
  public Map<String, Object> definitionFields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("kubernetesKind", kubernetesKind);
    if (spinnakerKind != null) {
      fields.put(
          "spinnakerKind", ClouddriverKinds.spinnakerKind(spinnakerKind).orElse(spinnakerKind));
    }
    if (deployPriority != null) {
      fields.put("deployPriority", deployPriority);
    }
    if (versioned != null) {
      fields.put("versioned", versioned);
    }
    if (namespaced != null) {
      fields.put("namespaced", namespaced);
    }
    return fields;
  }

  private static String text(Object value) {
    return value == null ? null : String.valueOf(value);
  }
}
