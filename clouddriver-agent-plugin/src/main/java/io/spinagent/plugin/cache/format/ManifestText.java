package io.spinagent.plugin.cache.format;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/**
 * An object's JSON text when it already is its cached manifest ({@link
 * ManifestCacheRecords#cachedManifest}), so that a body can carry the text as it came instead of
 * serialising the parsed tree again (which was a third of the work of deriving a change).
 *
 * <p>The text qualifies when making the manifest would change nothing and the text is one compact
 * JSON object: no {@code null} member to drop, {@code metadata.annotations} present, not a Secret
 * (whose {@code data} is dropped), no whitespace between tokens, nothing after the object. Text
 * that qualifies holds the same members in the same order as the tree's serialisation; only the
 * spelling of strings and numbers may differ (Gson, say, writes {@code =} as a unicode escape),
 * which any JSON reader takes as the same value.
 */
public final class ManifestText {

  private ManifestText() {}

  /**
   * The text of {@code json} if it is the cached manifest as is, otherwise null.
   *
   * @param json the object's JSON, which {@code object} was parsed from (strictly, so it is valid
   *     JSON up to the end of its first value)
   * @param object the parsed object
   * @param type the object's cache type
   */
  public static String of(byte[] json, JsonNode object, String type) {
    if (CacheTypes.SECRET.equals(type)
        || !object.path("metadata").path("annotations").isObject()
        || !isOneCompactObjectWithoutNull(json)) {
      return null;
    }
    return new String(json, StandardCharsets.UTF_8);
  }

  /**
   * Whether the text is an object that ends at its last byte, with no whitespace and no {@code
   * null} outside strings. Valid JSON is assumed, so outside strings an {@code n} can only start
   * {@code null}, and the brace that brings the depth back to zero closes the first value.
   */
  static boolean isOneCompactObjectWithoutNull(byte[] json) {
    if (json.length < 2 || json[0] != '{') {
      return false;
    }
    int depth = 0;
    boolean inString = false;
    for (int i = 0; i < json.length; i++) {
      byte b = json[i];
      if (inString) {
        if (b == '\\') {
          i++;
        } else if (b == '"') {
          inString = false;
        }
        continue;
      }
      switch (b) {
        case '"' -> inString = true;
        case '{', '[' -> depth++;
        case '}', ']' -> {
          if (--depth == 0) {
            return i == json.length - 1;
          }
        }
        case ' ', '\t', '\n', '\r', 'n' -> {
          return false;
        }
        default -> {}
      }
    }
    return false;
  }
}
