package io.spinagent.agent.tunnel;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The Kubernetes API verb of a relayed request, as RBAC names it, from its method, path and query:
 * {@code GET} of a collection is {@code list}, with {@code watch=true} it is {@code watch}, of a
 * single object (or its {@code log}) it is {@code get}. Discovery requests are recognised apart:
 * kubectl needs them whatever it is about to do.
 */
final class RequestVerb {

  private RequestVerb() {}

  static String of(String method, String path, String query) {
    List<String> rest = resourceSegments(path);
    boolean watch = !rest.isEmpty() && rest.get(0).equals("watch") || hasFlag(query, "watch");
    if (!rest.isEmpty() && rest.get(0).equals("watch")) {
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
    return switch (method.toUpperCase(Locale.ROOT)) {
      case "GET", "HEAD" -> watch ? "watch" : item ? "get" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> item ? "delete" : "deletecollection";
      default -> method.toLowerCase(Locale.ROOT);
    };
  }

  /**
   * API discovery: {@code /api}, {@code /api/v1}, {@code /apis}, {@code /apis/<group>[/<version>]},
   * {@code /openapi/...}, {@code /version}.
   */
  static boolean isDiscovery(String method, String path) {
    if (!method.equalsIgnoreCase("GET") && !method.equalsIgnoreCase("HEAD")) {
      return false;
    }
    List<String> segments = segments(path);
    if (segments.isEmpty()) {
      return true;
    }
    return switch (segments.get(0)) {
      case "api" -> segments.size() <= 2;
      case "apis" -> segments.size() <= 3;
      case "openapi", "version" -> true;
      default -> false;
    };
  }

  /** What follows {@code /api/v1} or {@code /apis/<group>/<version>}; empty for other paths. */
  private static List<String> resourceSegments(String path) {
    List<String> segments = segments(path);
    int start =
        segments.isEmpty()
            ? -1
            : segments.get(0).equals("api") ? 2 : segments.get(0).equals("apis") ? 3 : -1;
    return start < 0 || segments.size() <= start
        ? List.of()
        : segments.subList(start, segments.size());
  }

  private static List<String> segments(String path) {
    return Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
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
