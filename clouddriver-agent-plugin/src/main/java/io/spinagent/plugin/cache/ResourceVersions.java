package io.spinagent.plugin.cache;

/**
 * Orders Kubernetes resourceVersions. The API calls them opaque, but every API server backed by
 * etcd issues them as increasing integers, and ordering is what keeps a late, older change from
 * overwriting a newer one. Anything non-numeric is treated as unordered: the newer arrival wins.
 */
public final class ResourceVersions {

  private ResourceVersions() {}

  /** Whether {@code candidate} is strictly older than {@code held}. */
  public static boolean isOlder(String candidate, String held) {
    if (candidate == null || held == null || candidate.isEmpty() || held.isEmpty()) {
      return false;
    }
    try {
      return Long.parseLong(candidate) < Long.parseLong(held);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
