package io.spinagent.plugin.cache.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Derives the moniker Clouddriver's default namer ({@code KubernetesManifestNamer} → {@code
 * KubernetesManifestAnnotater.getMoniker}) gives an object:
 *
 * <ul>
 *   <li>app: annotation {@code moniker.spinnaker.io/application}, else the app parsed from the
 *       name;
 *   <li>cluster: annotation {@code moniker.spinnaker.io/cluster}, else the cluster parsed from the
 *       name (the name without a trailing {@code -vNNN});
 *   <li>stack, detail: only from {@code moniker.spinnaker.io/stack|detail} (never from the name);
 *   <li>sequence: annotation {@code moniker.spinnaker.io/sequence}; else, for a replicaSet only,
 *       annotation {@code deployment.kubernetes.io/revision}; else the {@code vNNN} of the name. An
 *       annotation that is present but not an integer gives no sequence at all (no fallback).
 * </ul>
 *
 * Name parsing follows frigga 0.24.0 {@code Names.parseName} (the version kork 7.245.0 pins), with
 * Clouddriver's special case for names starting with {@code system:}.
 */
public final class MonikerResolver {

  public static final String APPLICATION = "moniker.spinnaker.io/application";
  public static final String CLUSTER = "moniker.spinnaker.io/cluster";
  public static final String STACK = "moniker.spinnaker.io/stack";
  public static final String DETAIL = "moniker.spinnaker.io/detail";
  public static final String SEQUENCE = "moniker.spinnaker.io/sequence";
  public static final String DEPLOYMENT_REVISION = "deployment.kubernetes.io/revision";
  public static final String IGNORE_CACHING = "caching.spinnaker.io/ignore";

  // frigga 0.24.0: name characters, the hyphenated set (with '~' and '^'), and a push vNNN..vNNNNNN
  private static final String NAME_CHARS = "a-zA-Z0-9._";
  private static final String NAME_HYPHEN_CHARS = "-a-zA-Z0-9._~\\^";
  private static final String PUSH_FORMAT = "v([0-9]{3,6})";
  private static final Pattern PUSH =
      Pattern.compile("^([" + NAME_HYPHEN_CHARS + "]*)-(" + PUSH_FORMAT + ")$");
  private static final Pattern NAME =
      Pattern.compile(
          "^(["
              + NAME_CHARS
              + "]+)(?:-(["
              + NAME_CHARS
              + "]*)(?:-(["
              + NAME_HYPHEN_CHARS
              + "]*?))?)?$");
  private static final String SYSTEM_PREFIX = "system:";
  // Clouddriver's own pattern; note "[system:]" is a character class, as upstream.
  private static final Pattern SYSTEM_PUSH =
      Pattern.compile("^([" + SYSTEM_PREFIX + "].*)-(" + PUSH_FORMAT + ")$");

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private MonikerResolver() {}

  /** The moniker of an object of the given cache type. */
  public static Moniker resolve(String cacheType, JsonNode manifest) {
    JsonNode annotations = manifest.path("metadata").path("annotations");
    ParsedName parsed = parseName(textOrNull(manifest.path("metadata").path("name")));
    Integer nameSequence = parsed.sequence();
    Integer sequenceDefault =
        CacheTypes.REPLICA_SET.equals(cacheType)
            ? integerAnnotation(annotations, DEPLOYMENT_REVISION, nameSequence)
            : nameSequence;
    return new Moniker(
        stringAnnotation(annotations, APPLICATION, parsed.app()),
        stringAnnotation(annotations, CLUSTER, parsed.cluster()),
        stringAnnotation(annotations, DETAIL, null),
        stringAnnotation(annotations, STACK, null),
        integerAnnotation(annotations, SEQUENCE, sequenceDefault));
  }

  /**
   * The {@code moniker.spinnaker.io/application} annotation as the caching filter reads it (empty
   * if absent), used by {@code onlySpinnakerManaged}.
   */
  public static String applicationAnnotation(JsonNode manifest) {
    String app = stringAnnotation(manifest.path("metadata").path("annotations"), APPLICATION, "");
    return app == null ? "" : app;
  }

  /**
   * Whether {@code caching.spinnaker.io/ignore} says "do not cache". The value is read as JSON (so
   * {@code true} and {@code "true"} both count). Upstream, a value that is not a JSON boolean makes
   * the whole caching cycle of the account fail; here it simply does not ignore.
   */
  public static boolean isIgnored(JsonNode manifest) {
    JsonNode value = manifest.path("metadata").path("annotations").get(IGNORE_CACHING);
    if (value == null || value.isNull()) {
      return false;
    }
    try {
      Boolean b = MAPPER.readValue(value.asText(), Boolean.class);
      return b != null && b;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * String annotation as {@code KubernetesManifestAnnotater.getAnnotation} reads it: absent →
   * default; a value wrapped in double quotes is JSON-decoded (legacy writes); otherwise verbatim.
   */
  static String stringAnnotation(JsonNode annotations, String key, String defaultValue) {
    JsonNode node = annotations.get(key);
    if (node == null || node.isNull()) {
      return defaultValue;
    }
    String value = node.asText();
    if (value.length() > 1 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"') {
      try {
        return MAPPER.readValue(value, String.class);
      } catch (Exception e) {
        return null;
      }
    }
    return value;
  }

  /** Integer annotation: absent → default; otherwise read as JSON, unreadable → null. */
  static Integer integerAnnotation(JsonNode annotations, String key, Integer defaultValue) {
    JsonNode node = annotations.get(key);
    if (node == null || node.isNull()) {
      return defaultValue;
    }
    try {
      return MAPPER.readValue(node.asText(), Integer.class);
    } catch (Exception e) {
      return null;
    }
  }

  private static String textOrNull(JsonNode node) {
    return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
  }

  /**
   * What name parsing yields for the Kubernetes namer: app, cluster, sequence (any may be null).
   */
  public record ParsedName(
      String app, String cluster, String stack, String detail, Integer sequence) {}

  /**
   * Parses a resource name. Names starting with {@code system:} give app {@code system}, cluster =
   * the name without a trailing {@code -vNNN}. Other names follow frigga: an optional trailing
   * {@code -vNNN} (3 to 6 digits) is the push (sequence); the rest must match {@code
   * app[-stack[-detail]]} (app and stack from {@code [a-zA-Z0-9._]}, detail may contain hyphens),
   * otherwise nothing at all is derived.
   */
  public static ParsedName parseName(String name) {
    if (name != null && !name.trim().isEmpty() && name.startsWith(SYSTEM_PREFIX)) {
      Matcher push = SYSTEM_PUSH.matcher(name);
      boolean hasPush = push.matches();
      String cluster = hasPush ? push.group(1) : name;
      Integer sequence = hasPush ? Integer.valueOf(push.group(3)) : null;
      return new ParsedName(name.split(":", 0)[0], cluster, null, null, sequence);
    }
    if (name == null || name.trim().isEmpty()) {
      return new ParsedName(null, null, null, null, null);
    }
    Matcher push = PUSH.matcher(name);
    boolean hasPush = push.matches();
    String cluster = hasPush ? push.group(1) : name;
    Matcher parts = NAME.matcher(cluster);
    if (!parts.matches()) {
      return new ParsedName(null, null, null, null, null);
    }
    Integer sequence = hasPush ? Integer.valueOf(push.group(3)) : null;
    return new ParsedName(
        parts.group(1),
        cluster,
        emptyToNull(parts.group(2)),
        emptyToNull(parts.group(3)),
        sequence);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
