package io.spinagent.plugin.tunnel.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Names a Kubernetes API request the way kubectl's user would think of it, from its method, path
 * and query: {@code GET .../deployments} is a list, {@code GET ...?watch=true} a watch, {@code GET
 * .../pods/x/log} logs. Apply and rollout commands reach the API as get/create/patch and are
 * recorded as such.
 */
final class KubectlVerbs {

  private KubectlVerbs() {}

  static String of(String method, String path, String query) {
    List<String> segments =
        new ArrayList<>(Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList());
    String first = segments.isEmpty() ? "" : segments.get(0);
    // What follows /api/v1 or /apis/<group>/<version>.
    int resourceStart = first.equals("api") ? 2 : first.equals("apis") ? 3 : -1;
    if (resourceStart < 0 || segments.size() <= resourceStart) {
      return first.equals("api")
              || first.equals("apis")
              || first.equals("openapi")
              || first.equals("version")
          ? "discovery"
          : "";
    }
    List<String> rest = segments.subList(resourceStart, segments.size());
    boolean watch = rest.get(0).equals("watch") || hasFlag(query, "watch");
    if (rest.get(0).equals("watch")) {
      rest = rest.subList(1, rest.size());
    }
    boolean namespaceItself =
        rest.size() == 3
            && rest.get(0).equals("namespaces")
            && (rest.get(2).equals("status") || rest.get(2).equals("finalize"));
    if (rest.size() >= 3 && rest.get(0).equals("namespaces") && !namespaceItself) {
      rest = rest.subList(2, rest.size());
    }
    boolean item = rest.size() >= 2;
    String subresource = rest.size() >= 3 ? rest.get(2) : "";
    return switch (method.toUpperCase(Locale.ROOT)) {
      case "GET", "HEAD" ->
          subresource.equals("log") ? "logs" : watch ? "watch" : item ? "get" : "list";
      case "POST" -> "create";
      case "PUT" -> subresource.equals("scale") ? "scale" : "replace";
      case "PATCH" -> subresource.equals("scale") ? "scale" : "patch";
      case "DELETE" -> item ? "delete" : "deletecollection";
      default -> "";
    };
  }

  private static boolean hasFlag(String query, String name) {
    for (String pair : query.split("&")) {
      if (pair.equals(name + "=true") || pair.equals(name + "=1")) {
        return true;
      }
    }
    return false;
  }
}
