package io.spinagent.testkit.kubernetes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * {@code limit}/{@code continue} paging. Like a real API server, the continue token carries the
 * resourceVersion of the first page and the key of the last object returned; later pages are read
 * at that resourceVersion (the store rebuilds that state from its event history), so the pages form
 * one consistent snapshot. A token older than the history window is answered with 410 Expired,
 * which is what etcd compaction does to a real server's tokens.
 */
final class Pagination {

  /** Decoded continue token. */
  record Token(long resourceVersion, String startAfter, String query) {}

  /**
   * One page: the items, the token for the next page (null on the last page) and how many remain.
   */
  record Page(List<StoredObject> items, String continueToken, long remaining) {}

  private Pagination() {}

  static String encode(Token token) {
    ObjectNode node = Json.object();
    node.put("v", "spinagent.testkit/v1");
    node.put("rv", token.resourceVersion());
    node.put("start", token.startAfter());
    node.put("q", token.query());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.bytes(node));
  }

  static Token decode(String continueToken) {
    try {
      byte[] raw = Base64.getUrlDecoder().decode(continueToken);
      ObjectNode node = Json.parseObject(new String(raw, StandardCharsets.UTF_8));
      if (!"spinagent.testkit/v1".equals(node.path("v").asText()) || !node.has("rv")) {
        throw new IllegalArgumentException("unknown token version");
      }
      return new Token(
          node.get("rv").asLong(), node.path("start").asText(""), node.path("q").asText(""));
    } catch (RuntimeException e) {
      throw ApiError.badRequest("continue key is not valid: " + e.getMessage());
    }
  }

  /**
   * Cuts a page out of the (already filtered and key-ordered) listing.
   *
   * @param startAfter position of the last object of the previous page, empty for the first page
   * @param limit 0 or less for "everything"
   */
  static Page page(
      List<StoredObject> ordered,
      String startAfter,
      long limit,
      long resourceVersion,
      String query) {
    List<StoredObject> rest = new ArrayList<>();
    for (StoredObject object : ordered) {
      if (startAfter.isEmpty() || isAfter(object.key(), startAfter)) {
        rest.add(object);
      }
    }
    if (limit <= 0 || rest.size() <= limit) {
      return new Page(rest, null, 0);
    }
    List<StoredObject> items = List.copyOf(rest.subList(0, (int) limit));
    String last = items.get(items.size() - 1).key().position();
    String token = encode(new Token(resourceVersion, last, query));
    return new Page(items, token, rest.size() - limit);
  }

  /**
   * Compares (namespace, name) pairs as the key order does; a plain string compare of "ns/name"
   * would not.
   */
  private static boolean isAfter(ObjectKey key, String position) {
    int slash = position.indexOf('/');
    String namespace = slash < 0 ? "" : position.substring(0, slash);
    String name = slash < 0 ? position : position.substring(slash + 1);
    int byNamespace = key.namespace().compareTo(namespace);
    return byNamespace > 0 || (byNamespace == 0 && key.name().compareTo(name) > 0);
  }
}
