package io.spinagent.common;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Clouddriver's vocabulary of kinds (clouddriver-kubernetes 5.90.0, unchanged since): how it reads
 * a Kubernetes kind written in its configuration, and the values its account setting {@code
 * customResources} takes. The agent checks its configuration and the plugin the accounts it is sent
 * by these rules, so that a definition the plugin writes into Clouddriver's account storage never
 * makes Clouddriver fail to load the account.
 */
public final class ClouddriverKinds {

  /**
   * A kind, optionally qualified by its API group, as {@code KubernetesKind.fromString} reads it:
   * {@code Deployment}, {@code Deployment.apps}, {@code Rollout.argoproj.io}.
   */
  public static final Pattern KUBERNETES_KIND =
      Pattern.compile("[A-Za-z][A-Za-z0-9]*(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /** The longest kind: a kind's name (63 characters) and an API group's (253). */
  public static final int MAX_KUBERNETES_KIND_LENGTH = 63 + 1 + 253;

  /**
   * Clouddriver's Spinnaker kinds ({@code SpinnakerKind}), in its spelling. It reads any other
   * value as {@code unclassified} without a word, which is why SpinAgent refuses it instead.
   */
  public static final List<String> SPINNAKER_KINDS =
      List.of(
          "instances",
          "configs",
          "serverGroups",
          "loadBalancers",
          "securityGroups",
          "serverGroupManagers",
          "unclassified");

  /**
   * The names {@code deployPriority} may take besides a number ({@code
   * KubernetesHandler.DeployPriority}); any other value makes Clouddriver fail to build the
   * account's credentials.
   */
  public static final List<String> DEPLOY_PRIORITY_NAMES =
      List.of(
          "LOWEST_PRIORITY",
          "WORKLOAD_ATTACHMENT_PRIORITY",
          "WORKLOAD_CONTROLLER_PRIORITY",
          "WORKLOAD_PRIORITY",
          "WORKLOAD_MODIFIER_PRIORITY",
          "PDB_PRIORITY",
          "API_SERVICE_PRIORITY",
          "NETWORK_RESOURCE_PRIORITY",
          "MOUNTABLE_DATA_PRIORITY",
          "MOUNTABLE_DATA_BACKING_RESOURCE_PRIORITY",
          "SERVICE_ACCOUNT_PRIORITY",
          "STORAGE_CLASS_PRIORITY",
          "ADMISSION_PRIORITY",
          "RESOURCE_DEFINITION_PRIORITY",
          "ROLE_BINDING_PRIORITY",
          "ROLE_PRIORITY",
          "NAMESPACE_PRIORITY");

  private ClouddriverKinds() {}

  /** Whether Clouddriver reads {@code kind} as a kind (Kind or Kind.group). */
  public static boolean isKubernetesKind(String kind) {
    return kind != null
        && kind.length() <= MAX_KUBERNETES_KIND_LENGTH
        && KUBERNETES_KIND.matcher(kind).matches();
  }

  /**
   * The Spinnaker kind {@code value} names, in Clouddriver's spelling ({@code ServerGroups} →
   * {@code serverGroups}: Clouddriver compares ignoring case, Deck does not); empty when it names
   * none.
   */
  public static Optional<String> spinnakerKind(String value) {
    if (value == null) {
      return Optional.empty();
    }
    return SPINNAKER_KINDS.stream()
        .filter(kind -> kind.equalsIgnoreCase(value.strip()))
        .findFirst();
  }

  /**
   * Whether Clouddriver reads {@code value} as a deploy priority: a whole number, or one of {@link
   * #DEPLOY_PRIORITY_NAMES} in any case.
   */
  public static boolean isDeployPriority(String value) {
    if (value == null || value.isEmpty()) {
      return false;
    }
    try {
      Integer.parseInt(value);
      return true;
    } catch (NumberFormatException e) {
      return DEPLOY_PRIORITY_NAMES.contains(value.toUpperCase(Locale.ROOT));
    }
  }
}
