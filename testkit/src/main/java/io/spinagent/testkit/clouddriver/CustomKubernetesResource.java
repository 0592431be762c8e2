package io.spinagent.testkit.clouddriver;

/**
 * Stands in for clouddriver-kubernetes' {@code CustomKubernetesResource}, an item of a {@code
 * kubernetes} account's {@code customResources}, with Clouddriver's defaults: a definition that
 * leaves a field out reads back with the value Clouddriver would give it, and an unknown field
 * fails to read, as in {@link KubernetesAccountDefinition}.
 */
public class CustomKubernetesResource {

  public String kubernetesKind;
  public String spinnakerKind = "unclassified";
  public String deployPriority = "100";
  public boolean versioned = false;
  public boolean namespaced = true;
}
