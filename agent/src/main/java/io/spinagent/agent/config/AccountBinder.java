package io.spinagent.agent.config;

import io.spinagent.agent.config.ConfigNode.MapNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** Binds and checks {@code kubernetes.accounts[]}: one {@link KubernetesAccountConfig} per item. */
final class AccountBinder {

  /**
   * Spinnaker's rule for account names, as Halyard enforces it: lower-case letters, digits, '-' and
   * '_', starting and ending with a letter or digit. Names become parts of cache keys and
   * Kubernetes-facing names, so anything else breaks later and far from its cause.
   */
  static final Pattern ACCOUNT_NAME = Pattern.compile("[a-z0-9]+([-a-z0-9_]*[a-z0-9])?");

  /** A Kubernetes namespace name: an RFC 1123 DNS label, at most 63 characters. */
  static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  /**
   * A kind, optionally qualified by its API group to tell apart kinds of the same name: {@code
   * Deployment}, {@code Deployment.apps}, {@code Certificate.cert-manager.io}.
   */
  static final Pattern KIND =
      Pattern.compile("[A-Za-z][A-Za-z0-9]*(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /** Account name to the key path that first used it, for the duplicate-name message. */
  private final Map<String, String> firstUse = new HashMap<>();

  List<KubernetesAccountConfig> accounts(MapReader kubernetes) {
    return kubernetes.mapList("accounts", "account", (account, index) -> account(account));
  }

  private KubernetesAccountConfig account(MapReader a) {
    String name = name(a);

    Optional<Path> kubeconfigFile = a.path("kubeconfigFile");
    Optional<String> kubeconfigContents = a.string("kubeconfigContents");
    boolean serviceAccount = a.bool("serviceAccount", false);
    Optional<String> context = a.string("context");
    credentialSource(a, serviceAccount);
    if (context.isPresent() && serviceAccount) {
      a.problem(
          "context",
          "applies only to kubeconfigFile; an account using serviceAccount has no contexts");
    }
    boolean insecure = a.bool("insecure", false);

    List<String> namespaces = a.stringList("namespaces", AccountBinder::namespaceProblem);
    List<String> omitNamespaces = a.stringList("omitNamespaces", AccountBinder::namespaceProblem);
    if (!namespaces.isEmpty() && !omitNamespaces.isEmpty()) {
      a.problem(
          "omitNamespaces",
          "conflicts with "
              + a.pathOf("namespaces")
              + ": list either the namespaces to watch or those to omit, not both");
    }
    List<String> kinds = a.stringList("kinds", AccountBinder::kindProblem);
    List<String> omitKinds = a.stringList("omitKinds", AccountBinder::kindProblem);
    if (!kinds.isEmpty() && !omitKinds.isEmpty()) {
      a.problem(
          "omitKinds",
          "conflicts with "
              + a.pathOf("kinds")
              + ": list either the kinds to watch or those to omit, not both");
    }

    boolean onlyNamespaced = a.bool("onlyNamespacedResources", false);
    boolean onlySpinnakerManaged = a.bool("onlySpinnakerManaged", false);
    AccountPermissions permissions = permissions(a);
    Duration maxResumableAge =
        Duration.ofMillis(
            a.longInteger(
                "maxResumableResourceAgeMs",
                KubernetesAccountConfig.DEFAULT_MAX_RESUMABLE_RESOURCE_AGE.toMillis(),
                0,
                Long.MAX_VALUE));

    a.unsupported("metrics", "pod metrics collection is not implemented");
    a.unsupported(
        "customResourceDefinitions",
        "custom resources are watched like any other kind (when kinds is set, add them to it as"
            + " Kind.group)");
    boolean noProxy = a.bool("noProxy", false);

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
        onlyNamespaced,
        onlySpinnakerManaged,
        permissions,
        maxResumableAge,
        noProxy);
  }

  /** Exactly one of a kubeconfig file, a kubeconfig's contents and the pod's service account. */
  private static void credentialSource(MapReader a, boolean serviceAccount) {
    List<String> sources = new ArrayList<>();
    if (a.isSet("kubeconfigFile")) {
      sources.add("kubeconfigFile");
    }
    if (a.isSet("kubeconfigContents")) {
      sources.add("kubeconfigContents");
    }
    if (serviceAccount) {
      sources.add("serviceAccount");
    }
    if (sources.size() > 1) {
      a.problem(
          sources.get(1),
          "conflicts with "
              + a.pathOf(sources.get(0))
              + ": an account has exactly one credential source; set kubeconfigFile,"
              + " kubeconfigContents or serviceAccount: true");
    } else if (sources.isEmpty()) {
      a.problem(
          "kubeconfigFile",
          "is required unless serviceAccount is true or kubeconfigContents is set: an account"
              + " needs exactly one credential source");
    }
  }

  private String name(MapReader a) {
    if (!a.isSet("name")) {
      a.problem("name", "is required");
      return "";
    }
    Optional<String> name = a.string("name");
    if (name.isEmpty()) {
      return "";
    }
    if (!ACCOUNT_NAME.matcher(name.get()).matches()) {
      a.problem(
          "name",
          "'"
              + name.get()
              + "' is not a valid account name: use lower-case letters, digits,"
              + " '-' and '_', starting and ending with a letter or digit ("
              + ACCOUNT_NAME.pattern()
              + ")");
    } else {
      String where = a.pathOf("name") + " (" + a.originOf("name").describe() + ")";
      String first = firstUse.putIfAbsent(name.get(), where);
      if (first != null) {
        a.problem(
            "name",
            "duplicate account name '"
                + name.get()
                + "', already used by "
                + first
                + "; account names must be unique");
      }
    }
    return name.get();
  }

  /**
   * {@code permissions: {READ: [role, ...], WRITE: [role, ...]}}. Anything else is an error: the
   * product this replaces ignored malformed permission lists silently, which left accounts open.
   */
  private static AccountPermissions permissions(MapReader a) {
    if (a.isSet("permissions") && !(a.node("permissions") instanceof MapNode)) {
      a.problem(
          "permissions",
          "expected a map of READ and WRITE to lists of roles,"
              + " e.g. {READ: [dev, ops], WRITE: [ops]}, got "
              + a.node("permissions").description());
      return AccountPermissions.UNRESTRICTED;
    }
    return a.section(
        "permissions",
        p ->
            new AccountPermissions(
                p.stringList("READ", AccountBinder::roleProblem),
                p.stringList("WRITE", AccountBinder::roleProblem)));
  }

  static String namespaceProblem(String namespace) {
    return NAMESPACE.matcher(namespace).matches()
        ? null
        : "'"
            + namespace
            + "' is not a valid namespace name: lower-case letters, digits and '-',"
            + " starting and ending with a letter or digit, at most 63 characters";
  }

  static String kindProblem(String kind) {
    return KIND.matcher(kind).matches()
        ? null
        : "'"
            + kind
            + "' is not a valid kind: write Kind or Kind.group, e.g. Deployment or"
            + " Certificate.cert-manager.io";
  }

  static String roleProblem(String role) {
    return role.equals(role.strip()) ? null : "role '" + role + "' has leading or trailing spaces";
  }
}
