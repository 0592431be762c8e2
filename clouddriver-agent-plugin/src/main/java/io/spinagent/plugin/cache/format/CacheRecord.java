package io.spinagent.plugin.cache.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One cache entry as Clouddriver's {@code DefaultCacheData} holds it: id (the key), type (the
 * table), attributes, relationships (group → keys) and ttlSeconds. Relationship groups and keys are
 * kept sorted so that equal records serialize to equal bodies.
 *
 * <p>Body: {@code {"id":…,"ttlSeconds":…,"attributes":{…},"relationships":{…}}} — the field order
 * of {@code DefaultCacheData}; for a positive ttl {@code attributes.cacheExpiry} (epoch ms, now +
 * ttl) is added, as {@code DefaultCacheData}'s constructor does.
 */
public final class CacheRecord {

  /** ttlSeconds of Kubernetes infrastructure rows. */
  public static final int INFRASTRUCTURE_TTL_SECONDS = -1;

  /** ttlSeconds of logical (applications, clusters) rows: 10 minutes. */
  public static final int LOGICAL_TTL_SECONDS = 600;

  private final String id;
  private final String type;
  private final Map<String, Object> attributes;
  private final Map<String, SortedSet<String>> relationships;
  private final int ttlSeconds;

  public CacheRecord(
      String id,
      String type,
      Map<String, Object> attributes,
      Map<String, ? extends Collection<String>> relationships,
      int ttlSeconds) {
    this.id = Objects.requireNonNull(id, "id");
    this.type = Objects.requireNonNull(type, "type");
    this.attributes = new LinkedHashMap<>(attributes);
    TreeMap<String, SortedSet<String>> rels = new TreeMap<>();
    relationships.forEach((k, v) -> rels.put(k, new TreeSet<>(v)));
    this.relationships = rels;
    this.ttlSeconds = ttlSeconds;
  }

  public String id() {
    return id;
  }

  public String type() {
    return type;
  }

  public Map<String, Object> attributes() {
    return Collections.unmodifiableMap(attributes);
  }

  public Map<String, SortedSet<String>> relationships() {
    return Collections.unmodifiableMap(relationships);
  }

  /** The keys of one relationship group (empty if the group is absent). */
  public SortedSet<String> relationships(String group) {
    SortedSet<String> keys = relationships.get(group);
    return keys == null ? Collections.emptySortedSet() : Collections.unmodifiableSortedSet(keys);
  }

  public int ttlSeconds() {
    return ttlSeconds;
  }

  /**
   * Value of the {@code application} column: cats-sql stores {@code attributes.application} there;
   * no Kubernetes row has that attribute, so this is null for every record this package builds.
   */
  public String applicationColumn() {
    Object app = attributes.get("application");
    return app instanceof String ? (String) app : null;
  }

  /**
   * This record and another with the same id merged the way Clouddriver's {@code
   * KubernetesCacheData} accumulates one key: attributes of {@code other} win, relationships are
   * unioned, the smaller ttl is kept.
   */
  public CacheRecord merge(CacheRecord other) {
    if (!id.equals(other.id)) {
      throw new IllegalArgumentException("cannot merge " + id + " with " + other.id);
    }
    Map<String, Object> attrs = new LinkedHashMap<>(attributes);
    attrs.putAll(other.attributes);
    Map<String, SortedSet<String>> rels = new TreeMap<>();
    relationships.forEach((k, v) -> rels.put(k, new TreeSet<>(v)));
    other.relationships.forEach((k, v) -> rels.computeIfAbsent(k, x -> new TreeSet<>()).addAll(v));
    return new CacheRecord(id, type, attrs, rels, Math.min(ttlSeconds, other.ttlSeconds));
  }

  /**
   * The body as a JSON tree; {@code nowMillis} is only used for {@code cacheExpiry}. Attributes
   * that are trees are shared with this record, so the result is for reading or serialising. An
   * attribute given as a {@link RawValue} (JSON text known to be valid, such as a {@link
   * ManifestText}) is serialised as that text.
   */
  public ObjectNode toBody(ObjectMapper mapper, long nowMillis) {
    ObjectNode body = mapper.createObjectNode();
    body.put("id", id);
    body.put("ttlSeconds", ttlSeconds);
    ObjectNode attrs = body.putObject("attributes");
    attributes.forEach(
        (k, v) -> {
          if (v instanceof RawValue raw) {
            attrs.putRawValue(k, raw);
          } else if (v != null) {
            // a tree (the manifest) is shared, not copied: copying it doubled the cost of a body
            attrs.set(k, v instanceof JsonNode node ? node : mapper.valueToTree(v));
          }
        });
    if (ttlSeconds > 0) {
      attrs.put("cacheExpiry", nowMillis + ttlSeconds * 1000L);
    }
    ObjectNode rels = body.putObject("relationships");
    relationships.forEach(
        (group, keys) -> {
          ArrayNode array = rels.putArray(group);
          keys.forEach(array::add);
        });
    return body;
  }

  /** The body text written to the {@code body} column. */
  public String toBodyJson(ObjectMapper mapper, long nowMillis) {
    try {
      return mapper.writeValueAsString(toBody(mapper, nowMillis));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize " + id, e);
    }
  }

  /** The {@code body_hash} column: lower-case hex SHA-256 of the UTF-8 body text. */
  public static String bodyHash(String body) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CacheRecord)) {
      return false;
    }
    CacheRecord r = (CacheRecord) o;
    return ttlSeconds == r.ttlSeconds
        && id.equals(r.id)
        && type.equals(r.type)
        && attributes.equals(r.attributes)
        && relationships.equals(r.relationships);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, type, attributes, relationships, ttlSeconds);
  }

  @Override
  public String toString() {
    return "CacheRecord{" + type + " " + id + " rel=" + relationships + "}";
  }
}
