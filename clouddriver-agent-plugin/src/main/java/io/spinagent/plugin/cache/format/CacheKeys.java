package io.spinagent.plugin.cache.format;

import java.util.Objects;
import java.util.Optional;

/**
 * Cache keys in the spelling of Clouddriver's Kubernetes provider ({@code caching/Keys.java} at
 * v5.90.0): {@code kubernetes.v2:<parts joined by ':'>}, where a {@code null} part is written as
 * the empty string and every {@code ':'} inside a part becomes {@code ';'}.
 *
 * <ul>
 *   <li>infrastructure: {@code kubernetes.v2:infrastructure:<type>:<account>:<namespace>:<name>}
 *       (namespace empty for cluster-scoped kinds);
 *   <li>application: {@code kubernetes.v2:logical:applications:<app>};
 *   <li>cluster: {@code kubernetes.v2:logical:clusters:<account>:<app>:<cluster>}.
 * </ul>
 */
public final class CacheKeys {

  public static final String PROVIDER = "kubernetes.v2";
  public static final String INFRASTRUCTURE = "infrastructure";
  public static final String LOGICAL = "logical";

  private CacheKeys() {}

  public static String infrastructure(String type, String account, String namespace, String name) {
    return join(INFRASTRUCTURE, type, account, namespace, name);
  }

  public static String application(String application) {
    return join(LOGICAL, CacheTypes.APPLICATIONS, application);
  }

  public static String cluster(String account, String application, String cluster) {
    return join(LOGICAL, CacheTypes.CLUSTERS, account, application, cluster);
  }

  /** One key part as Clouddriver writes it: null as empty, {@code ':'} as {@code ';'}. */
  public static String escape(String part) {
    return part == null ? "" : part.replace(':', ';');
  }

  public static String unescape(String part) {
    return part.replace(';', ':');
  }

  private static String join(String... parts) {
    StringBuilder sb = new StringBuilder(PROVIDER);
    for (String part : parts) {
      sb.append(':').append(escape(part));
    }
    return sb.toString();
  }

  /**
   * Parses a key written by {@link #infrastructure}, {@link #application} or {@link #cluster}
   * (Clouddriver's {@code Keys.parseKey}: split on every ':', then ';' back to ':').
   */
  public static Optional<ParsedKey> parse(String key) {
    if (key == null) {
      return Optional.empty();
    }
    String[] parts = key.split(":", -1);
    if (parts.length < 3 || !PROVIDER.equals(parts[0])) {
      return Optional.empty();
    }
    for (int i = 0; i < parts.length; i++) {
      parts[i] = unescape(parts[i]);
    }
    if (INFRASTRUCTURE.equals(parts[1]) && parts.length == 6) {
      return Optional.of(new ParsedKey(key, parts[2], parts[3], parts[4], parts[5], null));
    }
    if (LOGICAL.equals(parts[1])) {
      if (CacheTypes.APPLICATIONS.equals(parts[2]) && parts.length == 4) {
        return Optional.of(
            new ParsedKey(key, CacheTypes.APPLICATIONS, null, null, parts[3], parts[3]));
      }
      if (CacheTypes.CLUSTERS.equals(parts[2]) && parts.length == 6) {
        return Optional.of(
            new ParsedKey(key, CacheTypes.CLUSTERS, parts[3], null, parts[5], parts[4]));
      }
    }
    return Optional.empty();
  }

  /**
   * A parsed key. {@code type} is the cache type (the relationship group / table suffix). For
   * infrastructure keys {@code application} is null; for logical keys {@code namespace} is null,
   * {@code name} is the application or cluster name.
   */
  public record ParsedKey(
      String key, String type, String account, String namespace, String name, String application) {

    public ParsedKey {
      Objects.requireNonNull(key);
      Objects.requireNonNull(type);
    }

    public boolean isLogical() {
      return CacheTypes.isLogical(type);
    }
  }
}
