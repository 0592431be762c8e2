package io.spinagent.agent.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One Spinnaker account, i.e. one cluster as seen with one set of credentials
 * ({@code kubernetes.accounts[]}). Exactly one credential source is set: a kubeconfig file, or the
 * service account of the pod the agent runs in.
 *
 * @param name                      the Spinnaker account name, unique
 * @param kubeconfigFile            kubeconfig to use; relative paths resolved against the
 *                                  directory of the configuration file that named it
 * @param serviceAccount            use the pod's own service account (in-cluster)
 * @param context                   kubeconfig context; the kubeconfig's current context if empty
 * @param namespaces                watch only these namespaces; empty means all
 * @param omitNamespaces            watch all namespaces but these
 * @param kinds                     watch only these kinds; empty means every kind the
 *                                  credentials may list
 * @param omitKinds                 watch every kind but these
 * @param onlyNamespacedResources   never touch cluster-scoped kinds (for credentials limited to
 *                                  namespaces)
 * @param onlySpinnakerManaged      send only objects Spinnaker manages (those with the
 *                                  {@code app.kubernetes.io/managed-by: spinnaker} label)
 * @param permissions               Fiat roles allowed to read and to write through this account
 * @param maxResumableResourceAge   after a restart, watches resume from a stored resource version
 *                                  only if it is younger than this; older ones relist at once
 *                                  ({@code maxResumableResourceAgeMs} in the file)
 */
public record KubernetesAccountConfig(
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

  /**
   * The API server's default etcd compaction interval: a resource version older than this has
   * probably been compacted away, and resuming from it would only earn a "410 Gone".
   */
  public static final Duration DEFAULT_MAX_RESUMABLE_RESOURCE_AGE = Duration.ofMinutes(5);

  public KubernetesAccountConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kubeconfigFile, "kubeconfigFile");
    Objects.requireNonNull(context, "context");
    namespaces = List.copyOf(namespaces);
    omitNamespaces = List.copyOf(omitNamespaces);
    kinds = List.copyOf(kinds);
    omitKinds = List.copyOf(omitKinds);
    Objects.requireNonNull(permissions, "permissions");
    Objects.requireNonNull(maxResumableResourceAge, "maxResumableResourceAge");
  }
}
