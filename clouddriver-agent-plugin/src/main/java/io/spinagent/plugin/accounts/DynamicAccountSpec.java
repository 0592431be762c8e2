package io.spinagent.plugin.accounts;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.spinagent.protocol.v1.AccountDefinition;
import io.spinagent.protocol.v1.Permissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * An account created through the REST API (or migrated from Clouddriver) that agents serve on the
 * plugin's behalf: what the operator sent, minus nothing. Exactly one of {@code
 * kubeconfigContents}, {@code kubeconfigFile} (a path on the agent's machine) and {@code
 * serviceAccount} says how the agent reaches the cluster; {@code agentId} or {@code zoneId} says
 * which agents serve it.
 *
 * <p>{@code metrics} and {@code customResources} are not the agent's business: they go into the
 * account's Clouddriver definition (null {@code metrics} leaves it to Clouddriver's default). The
 * agent is sent the custom resources' kinds among {@code kinds}, when {@code kinds} limits what it
 * watches.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DynamicAccountSpec(
    String name,
    String agentId,
    String zoneId,
    String kubeconfigContents,
    String kubeconfigFile,
    Boolean serviceAccount,
    String context,
    List<String> namespaces,
    List<String> omitNamespaces,
    List<String> kinds,
    List<String> omitKinds,
    AccountPermissions permissions,
    Boolean onlySpinnakerManaged,
    Boolean metrics,
    List<CustomResource> customResources) {

  public DynamicAccountSpec {
    namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
    omitNamespaces = omitNamespaces == null ? List.of() : List.copyOf(omitNamespaces);
    kinds = kinds == null ? List.of() : List.copyOf(kinds);
    omitKinds = omitKinds == null ? List.of() : List.copyOf(omitKinds);
    permissions = permissions == null ? AccountPermissions.NONE : permissions;
    // Kept with null items, which customResourcesProblem names, rather than failing here.
    customResources =
        customResources == null
            ? List.of()
            : Collections.unmodifiableList(new ArrayList<>(customResources));
  }

  /**
   * What is wrong with {@code customResources} by Clouddriver's rules, naming the item; empty when
   * nothing is. Clouddriver cannot load an account that declares a kind twice.
   */
  public Optional<String> customResourcesProblem() {
    Set<String> declared = new HashSet<>();
    for (int i = 0; i < customResources.size(); i++) {
      CustomResource resource = customResources.get(i);
      String where = "customResources[" + i + "]";
      if (resource == null) {
        return Optional.of(where + ": a custom resource (an object) is required, not null");
      }
      Optional<String> problem = resource.problem(where + ".");
      if (problem.isPresent()) {
        return problem;
      }
      if (!declared.add(resource.kubernetesKind().toLowerCase(Locale.ROOT))) {
        return Optional.of(
            where
                + ".kubernetesKind: "
                + resource.kubernetesKind()
                + " is declared more than once; Clouddriver cannot load an account that declares"
                + " a kind twice");
      }
    }
    return Optional.empty();
  }

  /** Whether {@code agent} (in {@code zone}) is one this account is meant for. */
  public boolean servedBy(String agent, String zone) {
    return agentId != null ? agentId.equals(agent) : zoneId != null && zoneId.equals(zone);
  }

  public boolean servedByTheSameAgentsAs(DynamicAccountSpec other) {
    return java.util.Objects.equals(agentId, other.agentId)
        && java.util.Objects.equals(zoneId, other.zoneId);
  }

  /**
   * The same account, reaching its cluster through the kubeconfig at {@code path} on the agent's
   * machine instead (its context kept).
   */
  public DynamicAccountSpec withKubeconfigFile(String path) {
    return withKubeconfig(null, path, null);
  }

  /** The same account, without the kubeconfig text: what the REST API shows. */
  public DynamicAccountSpec redacted() {
    return withKubeconfig(
        kubeconfigContents == null ? null : "<redacted>", kubeconfigFile, serviceAccount);
  }

  /** The same account with another way to its cluster. */
  private DynamicAccountSpec withKubeconfig(
      String contents, String file, Boolean viaServiceAccount) {
    return new DynamicAccountSpec(
        name,
        agentId,
        zoneId,
        contents,
        file,
        viaServiceAccount,
        context,
        namespaces,
        omitNamespaces,
        kinds,
        omitKinds,
        permissions,
        onlySpinnakerManaged,
        metrics,
        customResources);
  }

  /**
   * {@code kinds} and, when it limits what is watched, the custom resources' kinds not among them
   * (compared ignoring case, as the agent compares kinds).
   */
  List<String> watchedKinds() {
    if (kinds.isEmpty()) {
      return kinds;
    }
    List<String> watched = new ArrayList<>(kinds);
    for (CustomResource resource : customResources) {
      String kind = resource == null ? null : resource.kubernetesKind();
      if (kind != null && watched.stream().noneMatch(k -> k.equalsIgnoreCase(kind))) {
        watched.add(kind);
      }
    }
    return watched;
  }

  public AccountDefinition toProto() {
    AccountDefinition.Builder proto =
        AccountDefinition.newBuilder()
            .setName(name)
            .setServiceAccount(Boolean.TRUE.equals(serviceAccount))
            .addAllNamespaces(namespaces)
            .addAllOmitNamespaces(omitNamespaces)
            .addAllKinds(watchedKinds())
            .addAllOmitKinds(omitKinds)
            .setPermissions(
                Permissions.newBuilder()
                    .addAllRead(permissions.read())
                    .addAllWrite(permissions.write()))
            .setOnlySpinnakerManaged(Boolean.TRUE.equals(onlySpinnakerManaged));
    if (kubeconfigContents != null) {
      proto.setKubeconfigContents(kubeconfigContents);
    }
    if (kubeconfigFile != null) {
      proto.setKubeconfigFile(kubeconfigFile);
    }
    if (context != null) {
      proto.setContext(context);
    }
    return proto.build();
  }
}
