package io.spinagent.common;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a Kubernetes API request is, read from its method, path and query the way the API server
 * reads it for authorization (its {@code RequestInfo}): the verb RBAC checks, and the group,
 * version, namespace, resource, subresource and name it is about.
 *
 * <ul>
 *   <li>{@code GET} (or {@code HEAD}) of a named object is {@code get}; of a collection {@code
 *       list}, or {@code watch} with {@code watch=true} (or the old {@code /watch/} path). A named
 *       {@code GET} stays a {@code get} even with {@code watch=true}, as on the API server.
 *   <li>{@code POST} is {@code create}, {@code PUT} {@code update}, {@code PATCH} {@code patch};
 *       {@code DELETE} of a named object {@code delete}, of a collection {@code deletecollection}.
 *   <li>Subresources keep the verb of their method: {@code kubectl logs} is a {@code get} of {@code
 *       pods/log}, {@code exec}/{@code attach}/{@code portforward} a {@code create} (or {@code
 *       get}) of {@code pods/exec}…, {@code kubectl scale} a {@code patch} (or {@code update}) of
 *       {@code deployments/scale}, a pod's proxy whatever method of {@code pods/proxy}.
 *   <li>The old {@code /api/v1/proxy/…} paths are the verb {@code proxy}.
 *   <li>A {@code namespaces/<name>/status} or {@code /finalize} path is the namespace's
 *       subresource, not a namespaced resource.
 *   <li>Anything else ({@code /api}, {@code /apis/<group>/<version>}, {@code /openapi/…}, {@code
 *       /version}, {@code /healthz}…) is a non-resource request whose verb is its lower-case
 *       method. A {@code GET} of {@code /}, {@code /api…}, {@code /apis…}, {@code /openapi…} or
 *       {@code /version} is {@link #discovery()}: kubectl needs it whatever it is about to do.
 * </ul>
 *
 * <p>Shared by the agent (its tunnel's operation rules, its requests by verb) and the plugin (its
 * tunnel's history and meters), so both name a request alike.
 */
public record KubernetesRequest(
    String verb,
    boolean resourceRequest,
    boolean discovery,
    String apiGroup,
    String apiVersion,
    String namespace,
    String resource,
    String subresource,
    String name) {

  /** The verbs {@link #verbLabel()} names as they are; everything else is {@code other}. */
  public static final Set<String> RESOURCE_VERBS =
      Set.of(
          "get",
          "list",
          "watch",
          "create",
          "update",
          "patch",
          "delete",
          "deletecollection",
          "proxy");

  private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

  /** Where API discovery lives: what kubectl reads whatever it is about to do. */
  private static final Set<String> DISCOVERY_ROOTS = Set.of("api", "apis", "openapi", "version");

  private static final Set<String> TRUE = Set.of("1", "t", "T", "true", "TRUE", "True");

  /**
   * Reads a request the way the API server does for authorization.
   *
   * @param method the HTTP method, any case
   * @param path the URL path, e.g. {@code /apis/apps/v1/namespaces/default/deployments}
   * @param query the raw query string without {@code ?}; empty or null when there is none
   */
  public static KubernetesRequest of(String method, String path, String query) {
    String upper = method == null ? "" : method.toUpperCase(Locale.ROOT);
    List<String> parts = segments(path);
    int resourceStart =
        parts.isEmpty()
            ? -1
            : parts.get(0).equals("api") ? 2 : parts.get(0).equals("apis") ? 3 : -1;
    if (resourceStart < 0 || parts.size() <= resourceStart) {
      boolean discovery =
          (upper.equals("GET") || upper.equals("HEAD"))
              && (parts.isEmpty() || DISCOVERY_ROOTS.contains(parts.get(0)));
      return new KubernetesRequest(
          upper.toLowerCase(Locale.ROOT), false, discovery, "", "", "", "", "", "");
    }
    String group = resourceStart == 3 ? parts.get(1) : "";
    String version = parts.get(resourceStart - 1);
    List<String> rest = parts.subList(resourceStart, parts.size());

    String verb;
    if ((rest.get(0).equals("watch") || rest.get(0).equals("proxy")) && rest.size() >= 2) {
      verb = rest.get(0);
      rest = rest.subList(1, rest.size());
    } else {
      verb = methodVerb(upper);
    }

    // As on the API server, a namespace object's own namespace is its name.
    String namespace = "";
    if (rest.get(0).equals("namespaces") && rest.size() > 1) {
      namespace = rest.get(1);
      if (rest.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(rest.get(2))) {
        rest = rest.subList(2, rest.size());
      }
    }

    String resource = rest.get(0);
    String name = rest.size() >= 2 ? rest.get(1) : "";
    String subresource = rest.size() >= 3 && !verb.equals("proxy") ? rest.get(2) : "";

    if (name.isEmpty() && verb.equals("get")) {
      verb = flag(query, "watch") ? "watch" : "list";
    }
    if (name.isEmpty() && verb.equals("delete")) {
      verb = "deletecollection";
    }
    return new KubernetesRequest(
        verb, true, false, group, version, namespace, resource, subresource, name);
  }

  /**
   * The verb as a label of bounded values, for meters and the operation history: one of {@link
   * #RESOURCE_VERBS} for resource requests, {@code discovery} for API discovery, {@code other} for
   * anything else (health checks, unknown methods).
   */
  public String verbLabel() {
    if (resourceRequest) {
      return RESOURCE_VERBS.contains(verb) ? verb : "other";
    }
    return discovery ? "discovery" : "other";
  }

  /** {@code resource} or {@code resource/subresource}, as RBAC rules name it. */
  public String resourcePath() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }

  private static String methodVerb(String method) {
    return switch (method) {
      case "GET", "HEAD" -> "get";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      default -> "";
    };
  }

  private static List<String> segments(String path) {
    if (path == null) {
      return List.of();
    }
    return new ArrayList<>(Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList());
  }

  /** Whether the query sets {@code name} to true, as Go's strconv.ParseBool reads it. */
  private static boolean flag(String query, String name) {
    if (query == null || query.isEmpty()) {
      return false;
    }
    for (String pair : query.split("&", 0)) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        String value = pair.substring(eq + 1);
        return TRUE.contains(value);
      }
    }
    return false;
  }
}
