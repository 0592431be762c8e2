package io.spinagent.agent.config;

import io.spinagent.protocol.v1.CustomResource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One item of an account's {@code customResources}: Clouddriver's account setting of the same name
 * ({@code KubernetesAccountProperties.ManagedAccount.customResources}), which the agent watches and
 * reports for the account's Clouddriver definition. A setting left out is Clouddriver's default.
 *
 * @param kubernetesKind the kind, {@code Kind.group} (e.g. {@code Rollout.argoproj.io})
 * @param spinnakerKind Clouddriver's Spinnaker kind, in its spelling (default {@code unclassified})
 * @param deployPriority a number or one of Clouddriver's priority names (default 100)
 * @param versioned deployed with a version suffix, like a ReplicaSet (default false)
 * @param namespaced whether objects of the kind live in namespaces (default true)
 */
public record CustomResourceConfig(
    String kubernetesKind,
    Optional<String> spinnakerKind,
    Optional<String> deployPriority,
    Optional<Boolean> versioned,
    Optional<Boolean> namespaced) {

  public CustomResourceConfig {
    Objects.requireNonNull(kubernetesKind, "kubernetesKind");
    Objects.requireNonNull(spinnakerKind, "spinnakerKind");
    Objects.requireNonNull(deployPriority, "deployPriority");
    Objects.requireNonNull(versioned, "versioned");
    Objects.requireNonNull(namespaced, "namespaced");
  }

  /** As an account's YAML writes it: Clouddriver's field names, only the settings that were set. */
  public Map<String, Object> toYaml() {
    Map<String, Object> yaml = new LinkedHashMap<>();
    yaml.put("kubernetesKind", kubernetesKind);
    spinnakerKind.ifPresent(v -> yaml.put("spinnakerKind", v));
    deployPriority.ifPresent(v -> yaml.put("deployPriority", v));
    versioned.ifPresent(v -> yaml.put("versioned", v));
    namespaced.ifPresent(v -> yaml.put("namespaced", v));
    return yaml;
  }

  /** As the agent reports it to the plugin. */
  public CustomResource toProto() {
    CustomResource.Builder proto = CustomResource.newBuilder().setKubernetesKind(kubernetesKind);
    spinnakerKind.ifPresent(proto::setSpinnakerKind);
    deployPriority.ifPresent(proto::setDeployPriority);
    versioned.ifPresent(proto::setVersioned);
    namespaced.ifPresent(proto::setNamespaced);
    return proto.build();
  }
}
