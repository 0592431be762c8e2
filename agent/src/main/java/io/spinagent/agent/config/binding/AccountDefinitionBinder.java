package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.AccountPermissions;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.yaml.Excerpt;
import io.spinagent.protocol.v1.AccountDefinition;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Checks an {@code AccountDefinition} sent by Clouddriver and turns it into the same {@link
 * KubernetesAccountConfig} a configured account has, by the rules of {@code kubernetes.accounts[]}
 * (see {@link AccountBinder}). Only the fields are checked here; the kubeconfig itself is read by
 * the cluster side before the account starts.
 */
public final class AccountDefinitionBinder {

  private AccountDefinitionBinder() {}

  /**
   * Checks {@code definition} and binds it to the account configuration it describes.
   *
   * @param noProxy {@code kubernetes.noProxy} of the agent's configuration, which applies to the
   *     accounts Clouddriver adds as to those of the file
   * @throws AccountDefinitionException naming the first field that is wrong
   */
  public static KubernetesAccountConfig bind(AccountDefinition definition, boolean noProxy)
      throws AccountDefinitionException {
    KubernetesAccountConfig account = checked(definition);
    return noProxy ? account.withNoProxy() : account;
  }

  private static KubernetesAccountConfig checked(AccountDefinition definition)
      throws AccountDefinitionException {
    String name = definition.getName();
    if (name.isEmpty()) {
      throw new AccountDefinitionException(name, "name", "is required");
    }
    String nameProblem = AccountBinder.accountNameProblem(name);
    if (nameProblem != null) {
      throw new AccountDefinitionException("", "name", nameProblem);
    }
    if (SecretReferences.isReference(definition.getKubeconfigContents())) {
      throw unresolvedReference(name, "kubeconfig_contents", definition.getKubeconfigContents());
    }

    List<String> sources = new ArrayList<>();
    if (!definition.getKubeconfigContents().isEmpty()) {
      sources.add("kubeconfig_contents");
    }
    if (!definition.getKubeconfigFile().isEmpty()) {
      sources.add("kubeconfig_file");
    }
    if (definition.getServiceAccount()) {
      sources.add("service_account");
    }
    if (sources.isEmpty()) {
      throw new AccountDefinitionException(
          name,
          "kubeconfig_contents",
          "an account needs exactly one credential"
              + " source: kubeconfig_contents, kubeconfig_file or service_account; none is set");
    }
    if (sources.size() > 1) {
      throw new AccountDefinitionException(
          name,
          sources.get(1),
          "conflicts with " + sources.get(0) + ": an account has exactly one credential source");
    }
    if (definition.getServiceAccount() && !definition.getContext().isEmpty()) {
      throw new AccountDefinitionException(
          name,
          "context",
          "applies only to a kubeconfig; an account using service_account has no contexts");
    }
    Optional<Path> kubeconfigFile = kubeconfigFile(name, definition.getKubeconfigFile());

    check(name, "namespaces", definition.getNamespacesList(), AccountBinder::namespaceProblem);
    check(
        name,
        "omit_namespaces",
        definition.getOmitNamespacesList(),
        AccountBinder::namespaceProblem);
    if (definition.getNamespacesCount() > 0 && definition.getOmitNamespacesCount() > 0) {
      throw new AccountDefinitionException(
          name,
          "omit_namespaces",
          "conflicts with namespaces: list either the namespaces to watch or those to omit, not"
              + " both");
    }
    check(name, "kinds", definition.getKindsList(), AccountBinder::kindProblem);
    check(name, "omit_kinds", definition.getOmitKindsList(), AccountBinder::kindProblem);
    if (definition.getKindsCount() > 0 && definition.getOmitKindsCount() > 0) {
      throw new AccountDefinitionException(
          name,
          "omit_kinds",
          "conflicts with kinds: list either the kinds to watch or those to omit, not both");
    }
    check(
        name,
        "permissions.read",
        definition.getPermissions().getReadList(),
        AccountBinder::roleProblem);
    check(
        name,
        "permissions.write",
        definition.getPermissions().getWriteList(),
        AccountBinder::roleProblem);

    return new KubernetesAccountConfig(
        name,
        kubeconfigFile,
        definition.getKubeconfigContents().isEmpty()
            ? Optional.empty()
            : Optional.of(definition.getKubeconfigContents()),
        definition.getServiceAccount(),
        definition.getContext().isEmpty() ? Optional.empty() : Optional.of(definition.getContext()),
        definition.getNamespacesList(),
        definition.getOmitNamespacesList(),
        definition.getKindsList(),
        definition.getOmitKindsList(),
        false,
        definition.getOnlySpinnakerManaged(),
        new AccountPermissions(
            definition.getPermissions().getReadList(), definition.getPermissions().getWriteList()),
        KubernetesAccountConfig.DEFAULT_MAX_RESUMABLE_RESOURCE_AGE);
  }

  /**
   * A path on the agent's host. It must be absolute: a command has no configuration file whose
   * directory a relative path could be resolved against.
   */
  private static Optional<Path> kubeconfigFile(String name, String file)
      throws AccountDefinitionException {
    if (file.isEmpty()) {
      return Optional.empty();
    }
    if (SecretReferences.isReference(file)) {
      throw unresolvedReference(name, "kubeconfig_file", file);
    }
    Path path;
    try {
      path = Path.of(file);
    } catch (InvalidPathException e) {
      throw new AccountDefinitionException(
          name, "kubeconfig_file", Excerpt.quoted(file) + " is not a path: " + e.getReason());
    }
    if (!path.isAbsolute()) {
      throw new AccountDefinitionException(
          name,
          "kubeconfig_file",
          Excerpt.quoted(file)
              + " is not an absolute path; give the kubeconfig's full path on the agent's host,"
              + " e.g. /etc/spinagent/kubeconfigs/prod.yaml");
    }
    return Optional.of(path);
  }

  /**
   * A secret reference in an account Clouddriver sends, refused by name rather than parsed as a
   * kubeconfig. The agent resolves references in its own configuration only, as docs/accounts.md
   * says: the variables and files such a reference reads are what the agent's operator handed the
   * pod, not what whoever manages accounts in Clouddriver may ask for.
   */
  private static AccountDefinitionException unresolvedReference(
      String name, String field, String reference) {
    return new AccountDefinitionException(
        name,
        field,
        "is a secret reference ("
            + Excerpt.quoted(reference)
            + "), which the agent resolves in its own configuration file only, not in an account"
            + " Clouddriver sends: send the kubeconfig itself as kubeconfig_contents, or the"
            + " path of a kubeconfig on the agent's machine (e.g. a mounted Secret) as"
            + " kubeconfig_file");
  }

  private static void check(
      String name, String field, List<String> values, Function<String, String> problem)
      throws AccountDefinitionException {
    for (int i = 0; i < values.size(); i++) {
      String found = problem.apply(values.get(i));
      if (found != null) {
        throw new AccountDefinitionException(name, field + "[" + i + "]", found);
      }
    }
  }
}
