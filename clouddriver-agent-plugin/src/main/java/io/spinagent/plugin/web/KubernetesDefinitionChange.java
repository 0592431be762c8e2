package io.spinagent.plugin.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.plugin.accounts.DynamicAccountSpec;
import io.spinagent.plugin.accounts.KubeconfigFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a Clouddriver {@code kubernetes} account definition sent to {@code PUT /credentials} asks of
 * an account SpinAgent serves, as the body of a {@link AccountCommand.Kind#CHANGE} command: the
 * fields both kinds of definition share are carried over (as {@code POST
 * /spinagent/accounts/migrate} carries them), the agent or zone stays the account's, and a field
 * SpinAgent cannot honour is refused, naming it, rather than dropped.
 *
 * <ul>
 *   <li>{@code context}, {@code namespaces}, {@code omitNamespaces}, {@code kinds}, {@code
 *       omitKinds}, {@code onlySpinnakerManaged}, {@code metrics}, {@code customResources} and
 *       {@code permissions} ({@code READ}/{@code WRITE}) become the account's; left out, they are
 *       empty (or Clouddriver's defaults), as Clouddriver's PUT replaces the whole definition.
 *   <li>{@code kubeconfigContents} goes to the agent; {@code kubeconfigFile} is a path on
 *       Clouddriver's machine (Clouddriver's meaning), read here and sent as contents; {@code
 *       serviceAccount: true} is the agent's service account. With none of them, or with the tunnel
 *       kubeconfig Clouddriver shows for the account (a definition read with {@code GET
 *       /credentials/type/kubernetes} and sent back), the account keeps how its agent reaches the
 *       cluster, and its context.
 *   <li>{@code cacheThreads}, {@code cacheIntervalSeconds} and {@code checkPermissionsOnStartup}
 *       tune how Clouddriver polls an account, which it does not do for SpinAgent's (the agent
 *       streams it): accepted, without effect.
 *   <li>Any other field (Clouddriver's {@code kubectlExecutable}, {@code cachingPolicies}, {@code
 *       environment} …) is refused unless its value is empty or the one Clouddriver's stored
 *       definition already has: the definition Clouddriver keeps is the tunnel one SpinAgent
 *       writes, which cannot carry it.
 * </ul>
 */
final class KubernetesDefinitionChange {

  private static final Set<String> IDENTITY = Set.of("type", "name");
  private static final Set<String> CARRIED =
      Set.of(
          "context",
          "namespaces",
          "omitNamespaces",
          "kinds",
          "omitKinds",
          "onlySpinnakerManaged",
          "metrics",
          "customResources");
  private static final Set<String> CREDENTIALS =
      Set.of("kubeconfigContents", "kubeconfigFile", "serviceAccount");
  private static final Set<String> POLLING =
      Set.of("cacheThreads", "cacheIntervalSeconds", "checkPermissionsOnStartup");

  private KubernetesDefinitionChange() {}

  /**
   * The change {@code definition} asks of the SpinAgent account {@code current}.
   *
   * @param clouddrivers the definition Clouddriver stores for the account now (the tunnel one)
   * @throws io.spinagent.plugin.accounts.AccountRequestException (400) naming a field that cannot
   *     be honoured, or a kubeconfig file that cannot be read
   */
  static ObjectNode of(
      JsonNode definition, DynamicAccountSpec current, Map<String, Object> clouddrivers) {
    JsonNode stored = StrictJson.MAPPER.valueToTree(clouddrivers);
    List<String> refused = new ArrayList<>();
    for (Iterator<String> names = definition.fieldNames(); names.hasNext(); ) {
      String field = names.next();
      boolean known =
          IDENTITY.contains(field)
              || CARRIED.contains(field)
              || CREDENTIALS.contains(field)
              || POLLING.contains(field)
              || field.equals("permissions");
      if (!known
          && !empty(definition.get(field))
          && !definition.get(field).equals(stored.get(field))) {
        refused.add(field);
      }
    }
    if (!refused.isEmpty()) {
      throw StrictJson.invalid(
          String.join(", ", refused)
              + ": not kept for an account SpinAgent serves: Clouddriver's definition of it is the"
              + " tunnel one SpinAgent writes, and its agent has no such setting. Leave "
              + (refused.size() == 1 ? "it" : "them")
              + " out; SpinAgent accounts take context, namespaces, omitNamespaces, kinds,"
              + " omitKinds, onlySpinnakerManaged, metrics, customResources, permissions and a"
              + " kubeconfig");
    }

    ObjectNode change = JsonNodeFactory.instance.objectNode();
    change.put("name", current.name());
    if (current.agentId() != null) {
      change.put("agentId", current.agentId());
    } else {
      change.put("zoneId", current.zoneId());
    }
    for (String field : CARRIED) {
      JsonNode value = definition.get(field);
      if (value != null && !value.isNull()) {
        change.set(field, value);
      }
    }
    permissions(definition.get("permissions")).ifPresent(p -> change.set("permissions", p));
    credentials(definition, stored, current, change);
    return change;
  }

  /** How the agent reaches the cluster: the body's, or, when it names none, the account's own. */
  private static void credentials(
      JsonNode definition, JsonNode stored, DynamicAccountSpec current, ObjectNode change) {
    String contents = text(definition, "kubeconfigContents");
    String file = text(definition, "kubeconfigFile");
    boolean serviceAccount = definition.path("serviceAccount").asBoolean(false);
    if (contents != null && contents.equals(text(stored, "kubeconfigContents"))) {
      // The tunnel kubeconfig, as GET /credentials/type/kubernetes shows it: not a new one.
      contents = null;
    }
    if (contents != null && file != null) {
      throw StrictJson.invalid("kubeconfigContents, kubeconfigFile: give one kubeconfig, not both");
    }
    if (file != null) {
      contents = read(file);
    }
    if (contents != null) {
      change.put("kubeconfigContents", contents);
    } else if (serviceAccount) {
      change.put("serviceAccount", true);
    } else {
      // No new way to reach the cluster: the account keeps its own, with its context.
      if (current.kubeconfigContents() != null) {
        change.put("kubeconfigContents", current.kubeconfigContents());
      } else if (current.kubeconfigFile() != null) {
        change.put("kubeconfigFile", current.kubeconfigFile());
      } else {
        change.put("serviceAccount", true);
      }
      if (!change.has("context") && current.context() != null) {
        change.put("context", current.context());
      }
    }
  }

  /** Clouddriver's {@code {"READ": [...], "WRITE": [...]}} as SpinAgent's read and write roles. */
  private static Optional<ObjectNode> permissions(JsonNode permissions) {
    if (permissions == null || permissions.isNull()) {
      return Optional.empty();
    }
    if (!permissions.isObject()) {
      throw StrictJson.invalid(
          "permissions: an object of role lists, e.g. {\"READ\": [\"dev\"], \"WRITE\": [\"ops\"]}");
    }
    ObjectNode roles = JsonNodeFactory.instance.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> entries = permissions.fields();
        entries.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = entries.next();
      String permission = entry.getKey().toUpperCase(Locale.ROOT);
      if (permission.equals("READ") || permission.equals("WRITE")) {
        roles.set(permission.toLowerCase(Locale.ROOT), entry.getValue());
      } else if (!empty(entry.getValue())) {
        throw StrictJson.invalid(
            "permissions."
                + entry.getKey()
                + ": SpinAgent accounts have READ and WRITE roles only (Clouddriver checks no"
                + " other permission on an account)");
      }
    }
    return Optional.of(roles);
  }

  /** A kubeconfig file on Clouddriver's machine, as Clouddriver would read it. */
  private static String read(String file) {
    try {
      return KubeconfigFile.read(file);
    } catch (IOException e) {
      throw StrictJson.invalid(
          "kubeconfigFile: cannot read '"
              + file
              + "' on this Clouddriver replica ("
              + e.getMessage()
              + "); send the kubeconfig itself as kubeconfigContents");
    }
  }

  private static boolean empty(JsonNode value) {
    return value == null
        || value.isNull()
        || (value.isBoolean() && !value.asBoolean())
        || (value.isTextual() && value.asText().isEmpty())
        || (value.isContainerNode() && value.isEmpty());
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
  }
}
