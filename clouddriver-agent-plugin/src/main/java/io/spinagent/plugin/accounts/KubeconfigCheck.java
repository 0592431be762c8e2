package io.spinagent.plugin.accounts;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Checks a kubeconfig sent through the REST API before any agent sees it: YAML, with the context to
 * use, its cluster and a server URL. The agent checks it again, against the cluster.
 */
final class KubeconfigCheck {

  private KubeconfigCheck() {}

  /** Why the kubeconfig cannot be used, naming the field; empty when it can. */
  static Optional<String> problem(String kubeconfig, String context) {
    String trimmed = kubeconfig.strip();
    if (isSecretReference(trimmed)) {
      return Optional.of(
          "kubeconfigContents: '"
              + trimmed.substring(0, Math.min(trimmed.length(), 64))
              + "' is a secret reference, which SpinAgent does not resolve in account"
              + " definitions: give the kubeconfig itself, or a kubeconfigFile on the agent's"
              + " machine");
    }
    Object parsed;
    try {
      parsed = new Yaml(new SafeConstructor(new LoaderOptions())).load(kubeconfig);
    } catch (YAMLException e) {
      return Optional.of("kubeconfigContents: not valid YAML: " + firstLine(e.getMessage()));
    }
    if (!(parsed instanceof Map<?, ?> config)) {
      return Optional.of(
          "kubeconfigContents: not a kubeconfig (expected a YAML mapping with clusters, users,"
              + " contexts)");
    }
    String wanted =
        context != null && !context.isBlank() ? context : string(config.get("current-context"));
    if (wanted == null) {
      return Optional.of("kubeconfigContents: no current-context, and no context given");
    }
    Map<?, ?> contextEntry = named(config.get("contexts"), wanted, "context");
    if (contextEntry == null) {
      return Optional.of("kubeconfigContents: no context named '" + wanted + "'");
    }
    String clusterName = string(contextEntry.get("cluster"));
    Map<?, ?> cluster =
        clusterName == null ? null : named(config.get("clusters"), clusterName, "cluster");
    if (cluster == null) {
      return Optional.of(
          "kubeconfigContents: context '"
              + wanted
              + "' names cluster '"
              + clusterName
              + "', which the kubeconfig does not define");
    }
    if (string(cluster.get("server")) == null) {
      return Optional.of("kubeconfigContents: cluster '" + clusterName + "' has no server URL");
    }
    return Optional.empty();
  }

  /**
   * A Spinnaker secret reference: {@code encrypted:…}, {@code encryptedFile:…}, {@code secret://…}.
   */
  static boolean isSecretReference(String value) {
    return value.startsWith("encrypted:")
        || value.startsWith("encryptedFile:")
        || value.startsWith("secret://");
  }

  /** The inner mapping (e.g. {@code context:}) of the list entry called {@code name}. */
  private static Map<?, ?> named(Object list, String name, String field) {
    if (!(list instanceof List<?> entries)) {
      return null;
    }
    for (Object entry : entries) {
      if (entry instanceof Map<?, ?> map
          && name.equals(string(map.get("name")))
          && map.get(field) instanceof Map<?, ?> inner) {
        return inner;
      }
    }
    return null;
  }

  private static String string(Object value) {
    return value instanceof String text && !text.isBlank() ? text : null;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
