package io.spinagent.agent.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One Spinnaker account, i.e. one cluster as seen with one set of credentials ({@code
 * kubernetes.accounts[]}, or a dynamic account Clouddriver added by command). Exactly one
 * credential source is set: a kubeconfig file, a kubeconfig's contents (dynamic accounts only), or
 * the service account of the pod the agent runs in.
 *
 * @param name the Spinnaker account name, unique
 * @param kubeconfigFile kubeconfig to use; relative paths resolved against the directory of the
 *     configuration file that named it
 * @param kubeconfigContents a kubeconfig itself, as Clouddriver sent it in an {@code AddAccount}
 *     command; never logged
 * @param serviceAccount use the pod's own service account (in-cluster)
 * @param context kubeconfig context; the kubeconfig's current context if empty
 * @param insecure do not verify the API server's certificate
 * @param namespaces watch only these namespaces; empty means all
 * @param omitNamespaces watch all namespaces but these
 * @param kinds watch only these kinds; empty means every kind the credentials may list
 * @param omitKinds watch every kind but these
 * @param onlyNamespacedResources never touch cluster-scoped kinds (for credentials limited to
 *     namespaces)
 * @param onlySpinnakerManaged send only objects Spinnaker manages (those with the {@code
 *     app.kubernetes.io/managed-by: spinnaker} label)
 * @param permissions Fiat roles allowed to read and to write through this account
 * @param maxResumableResourceAge after a restart, watches resume from a stored resource version
 *     only if it is younger than this; older ones relist at once ({@code
 *     kubernetes.accounts[].maxResumableResourceAgeMs} in the file)
 * @param noProxy connect to the cluster directly, even when proxy environment variables are set
 * @param metrics Clouddriver's {@code metrics} for the account's definition (whether it reads pod
 *     metrics with {@code kubectl top}); empty leaves it to Clouddriver's default (true)
 * @param customResources Clouddriver's {@code customResources} for the account's definition; with
 *     {@code kinds} set, their kinds are among {@code kinds} too
 */
public record KubernetesAccountConfig(
    String name,
    Optional<Path> kubeconfigFile,
    Optional<String> kubeconfigContents,
    boolean serviceAccount,
    Optional<String> context,
    boolean insecure,
    List<String> namespaces,
    List<String> omitNamespaces,
    List<String> kinds,
    List<String> omitKinds,
    boolean onlyNamespacedResources,
    boolean onlySpinnakerManaged,
    AccountPermissions permissions,
    Duration maxResumableResourceAge,
    boolean noProxy,
    Optional<Boolean> metrics,
    List<CustomResourceConfig> customResources) {

  /**
   * The API server's default etcd compaction interval: a resource version older than this has
   * probably been compacted away, and resuming from it would only earn a "410 Gone".
   */
  public static final Duration DEFAULT_MAX_RESUMABLE_RESOURCE_AGE = Duration.ofMinutes(5);

  public KubernetesAccountConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kubeconfigFile, "kubeconfigFile");
    Objects.requireNonNull(kubeconfigContents, "kubeconfigContents");
    Objects.requireNonNull(context, "context");
    namespaces = List.copyOf(namespaces);
    omitNamespaces = List.copyOf(omitNamespaces);
    omitKinds = List.copyOf(omitKinds);
    Objects.requireNonNull(permissions, "permissions");
    Objects.requireNonNull(maxResumableResourceAge, "maxResumableResourceAge");
    Objects.requireNonNull(metrics, "metrics");
    customResources = List.copyOf(customResources);
    kinds = withCustomResourceKinds(kinds, customResources);
  }

  /**
   * {@code kinds} and, when it limits what is watched, the custom resources' kinds not among them
   * (compared ignoring case, as kinds are): a declared custom resource is always watched. Without
   * {@code kinds} every kind is watched, custom resources among them.
   */
  private static List<String> withCustomResourceKinds(
      List<String> kinds, List<CustomResourceConfig> customResources) {
    if (kinds.isEmpty()) {
      return List.of();
    }
    List<String> all = new ArrayList<>(kinds);
    for (CustomResourceConfig resource : customResources) {
      if (all.stream().noneMatch(k -> k.equalsIgnoreCase(resource.kubernetesKind()))) {
        all.add(resource.kubernetesKind());
      }
    }
    return List.copyOf(all);
  }

  /**
   * Verifying the API server's certificate and honouring the proxy environment variables, with
   * Clouddriver's defaults for metrics and custom resources.
   */
  public KubernetesAccountConfig(
      String name,
      Optional<Path> kubeconfigFile,
      Optional<String> kubeconfigContents,
      boolean serviceAccount,
      Optional<String> context,
      List<String> namespaces,
      List<String> omitNamespaces,
      List<String> kinds,
      List<String> omitKinds,
      boolean onlyNamespacedResources,
      boolean onlySpinnakerManaged,
      AccountPermissions permissions,
      Duration maxResumableResourceAge) {
    this(
        name,
        kubeconfigFile,
        kubeconfigContents,
        serviceAccount,
        context,
        false,
        namespaces,
        omitNamespaces,
        kinds,
        omitKinds,
        onlyNamespacedResources,
        onlySpinnakerManaged,
        permissions,
        maxResumableResourceAge,
        false,
        Optional.empty(),
        List.of());
  }

  /** An account whose credentials are a kubeconfig file or the pod's service account. */
  public KubernetesAccountConfig(
      String name,
      Optional<Path> kubeconfigFile,
      boolean serviceAccount,
      Optional<String> context,
      List<String> namespaces,
      List<String> omitNamespaces,
      List<String> kinds,
      List<String> omitKinds,
      boolean onlyNamespacedResources,
      boolean onlySpinnakerManaged,
      AccountPermissions permissions,
      Duration maxResumableResourceAge) {
    this(
        name,
        kubeconfigFile,
        Optional.empty(),
        serviceAccount,
        context,
        false,
        namespaces,
        omitNamespaces,
        kinds,
        omitKinds,
        onlyNamespacedResources,
        onlySpinnakerManaged,
        permissions,
        maxResumableResourceAge,
        false,
        Optional.empty(),
        List.of());
  }

  /** The same account, connecting directly even when proxy environment variables are set. */
  public KubernetesAccountConfig withNoProxy() {
    return new KubernetesAccountConfig(
        name,
        kubeconfigFile,
        kubeconfigContents,
        serviceAccount,
        context,
        insecure,
        namespaces,
        omitNamespaces,
        kinds,
        omitKinds,
        onlyNamespacedResources,
        onlySpinnakerManaged,
        permissions,
        maxResumableResourceAge,
        true,
        metrics,
        customResources);
  }

  /** Without the kubeconfig's contents, which hold credentials and must not reach a log. */
  @Override
  public String toString() {
    return "KubernetesAccountConfig[name="
        + name
        + ", kubeconfigFile="
        + kubeconfigFile
        + ", kubeconfigContents="
        + kubeconfigContents.map(c -> "(" + c.length() + " characters)").orElse("none")
        + ", serviceAccount="
        + serviceAccount
        + ", context="
        + context
        + ", insecure="
        + insecure
        + ", namespaces="
        + namespaces
        + ", omitNamespaces="
        + omitNamespaces
        + ", kinds="
        + kinds
        + ", omitKinds="
        + omitKinds
        + ", onlyNamespacedResources="
        + onlyNamespacedResources
        + ", onlySpinnakerManaged="
        + onlySpinnakerManaged
        + ", permissions="
        + permissions
        + ", maxResumableResourceAge="
        + maxResumableResourceAge
        + ", noProxy="
        + noProxy
        + ", metrics="
        + metrics
        + ", customResources="
        + customResources
        + "]";
  }
}
