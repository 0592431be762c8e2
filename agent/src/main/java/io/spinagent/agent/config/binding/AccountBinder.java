package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.AccountPermissions;
import io.spinagent.agent.config.CustomResourceConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.yaml.ConfigNode;
import io.spinagent.agent.config.yaml.ConfigNode.ListNode;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.Excerpt;
import io.spinagent.common.ClouddriverKinds;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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

  /**
   * The longest account name: what the plugin's tables hold. Checked before {@link #ACCOUNT_NAME},
   * whose matching takes time in the square of the length of a name that almost matches.
   */
  static final int MAX_ACCOUNT_NAME_LENGTH = 100;

  /** A Kubernetes namespace name: an RFC 1123 DNS label, at most 63 characters. */
  static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  /**
   * A kind, optionally qualified by its API group to tell apart kinds of the same name: {@code
   * Deployment}, {@code Deployment.apps}, {@code Certificate.cert-manager.io}.
   */
  static final Pattern KIND = ClouddriverKinds.KUBERNETES_KIND;

  /** The longest kind: a kind's name (63 characters) and an API group's (253). */
  static final int MAX_KIND_LENGTH = ClouddriverKinds.MAX_KUBERNETES_KIND_LENGTH;

  /** Account name to the key path that first used it, for the duplicate-name message. */
  private final Map<String, String> firstUse = new HashMap<>();

  List<KubernetesAccountConfig> accounts(MapReader kubernetes) {
    return kubernetes.mapList("accounts", "account", (account, index) -> account(account));
  }

  private KubernetesAccountConfig account(MapReader a) {
    String name = name(a);

    String kubeconfigKey = a.spelling("kubeconfigFile", "kubeConfigFile");
    Optional<Path> kubeconfigFile = a.path(kubeconfigKey);
    Optional<String> kubeconfigContents = a.string("kubeconfigContents");
    boolean serviceAccount = a.bool("serviceAccount", false);
    Optional<String> context = a.string("context");
    credentialSource(a, kubeconfigKey, serviceAccount);
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
    List<CustomResourceConfig> customResources = CustomResourceBinder.customResources(a);
    CustomResourceBinder.warnUnlimitedKinds(a, kinds);

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
    boolean noProxy = a.bool("noProxy", false);
    Optional<Boolean> metrics = a.optionalBool("metrics");

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
        noProxy,
        metrics,
        customResources);
  }

  /** Exactly one of a kubeconfig file, a kubeconfig's contents and the pod's service account. */
  private static void credentialSource(MapReader a, String kubeconfigKey, boolean serviceAccount) {
    List<String> sources = new ArrayList<>();
    if (a.isSet(kubeconfigKey)) {
      sources.add(kubeconfigKey);
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
    String problem = accountNameProblem(name.get());
    if (problem != null) {
      a.problem("name", problem);
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
   * {@code permissions: {READ: [role, ...], WRITE: [role, ...]}}, or Armory Scale Agent's list of
   * single-key maps, {@code [{READ: [role, ...]}, {WRITE: [role, ...]}]}. Anything else is an
   * error: the product this replaces ignored malformed permission lists silently, which left
   * accounts open.
   */
  private static AccountPermissions permissions(MapReader a) {
    ConfigNode node = a.node("permissions");
    if (node instanceof ListNode list
        && list.items().stream().allMatch(MapNode.class::isInstance)) {
      return armoryPermissions(a);
    }
    if (node != null && !(node instanceof MapNode)) {
      a.problem(
          "permissions",
          "expected a map of READ and WRITE to lists of roles,"
              + " e.g. {READ: [dev, ops], WRITE: [ops]}, or Armory Scale Agent's list of them,"
              + " e.g. [{READ: [dev, ops]}, {WRITE: [ops]}]; got "
              + (node instanceof ListNode list
                  ? "a list of " + list.items().stream().map(ConfigNode::description).toList()
                  : node.description()));
      return AccountPermissions.UNRESTRICTED;
    }
    return a.section(
        "permissions",
        p ->
            new AccountPermissions(
                p.stringList("READ", AccountBinder::roleProblem),
                p.stringList("WRITE", AccountBinder::roleProblem)));
  }

  /** The list form; the converter writes it as the map form. */
  private static AccountPermissions armoryPermissions(MapReader a) {
    List<String> read = new ArrayList<>();
    List<String> write = new ArrayList<>();
    a.mapList(
        "permissions",
        "permission",
        (p, index) -> {
          p.stringList("READ", AccountBinder::roleProblem).forEach(role -> addOnce(read, role));
          p.stringList("WRITE", AccountBinder::roleProblem).forEach(role -> addOnce(write, role));
          return null;
        });
    Map<String, Object> asMap = new LinkedHashMap<>();
    if (!read.isEmpty()) {
      asMap.put("READ", List.copyOf(read));
    }
    if (!write.isEmpty()) {
      asMap.put("WRITE", List.copyOf(write));
    }
    a.rewriteValue("permissions", asMap, "Armory Scale Agent's list form written as a map");
    return new AccountPermissions(read, write);
  }

  private static void addOnce(List<String> roles, String role) {
    if (!roles.contains(role)) {
      roles.add(role);
    }
  }

  /** Why {@code name} cannot be an account's name; null when it can. */
  static String accountNameProblem(String name) {
    if (name.length() > MAX_ACCOUNT_NAME_LENGTH) {
      return Excerpt.quoted(name)
          + " is longer than "
          + MAX_ACCOUNT_NAME_LENGTH
          + " characters, the limit for an account name";
    }
    return ACCOUNT_NAME.matcher(name).matches()
        ? null
        : Excerpt.quoted(name)
            + " is not a valid account name: use lower-case letters, digits, '-' and '_',"
            + " starting and ending with a letter or digit ("
            + ACCOUNT_NAME.pattern()
            + ")";
  }

  static String namespaceProblem(String namespace) {
    return NAMESPACE.matcher(namespace).matches()
        ? null
        : Excerpt.quoted(namespace)
            + " is not a valid namespace name: lower-case letters, digits and '-',"
            + " starting and ending with a letter or digit, at most 63 characters";
  }

  static String kindProblem(String kind) {
    if (kind.length() > MAX_KIND_LENGTH) {
      return Excerpt.quoted(kind)
          + " is longer than "
          + MAX_KIND_LENGTH
          + " characters, the limit for a kind (Kind.group)";
    }
    return KIND.matcher(kind).matches()
        ? null
        : Excerpt.quoted(kind)
            + " is not a valid kind: write Kind or Kind.group, e.g. Deployment or"
            + " Certificate.cert-manager.io";
  }

  static String roleProblem(String role) {
    return role.equals(role.strip())
        ? null
        : "role " + Excerpt.quoted(role) + " has leading or trailing spaces";
  }
}
