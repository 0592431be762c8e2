package io.spinagent.plugin.cache.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cache records Clouddriver's Kubernetes caching agent derives from one object of an account
 * ({@code KubernetesCacheDataConverter.convertAsResource}): the infrastructure record and this
 * object's contribution to its application and cluster records.
 *
 * <p>Relationships that only depend on the object itself (owner references, an event's involved
 * object, application and cluster) are always computed. Those that depend on other objects of the
 * account (objects it owns, service ↔ replicaSet by selector, ingress → service, statefulSet →
 * service, events about it) come from a {@link RelationshipIndex} of the account, if one is given.
 *
 * <p>Logical records are contributions: the application record lists only this object (and its
 * cluster); a writer unions the contributions of all objects (see {@link CacheRecord#merge}).
 */
public final class ManifestCacheRecords {

  /** Why an object is not cached. */
  public enum Skip {
    /** no kind, apiVersion or metadata.name: Clouddriver fails to convert it */
    MALFORMED,
    /** the kind is not among the account's cached kinds */
    KIND_NOT_CACHED,
    /** {@code caching.spinnaker.io/ignore: "true"} */
    IGNORED,
    /** {@code onlySpinnakerManaged} and no {@code moniker.spinnaker.io/application} annotation */
    NOT_SPINNAKER_MANAGED
  }

  private final String account;
  private final String type;
  private final String key;
  private final Moniker moniker;
  private final CacheRecord infrastructure;
  private final CacheRecord application;
  private final CacheRecord cluster;

  private ManifestCacheRecords(
      String account,
      String type,
      String key,
      Moniker moniker,
      CacheRecord infrastructure,
      CacheRecord application,
      CacheRecord cluster) {
    this.account = account;
    this.type = type;
    this.key = key;
    this.moniker = moniker;
    this.infrastructure = infrastructure;
    this.application = application;
    this.cluster = cluster;
  }

  /** Why this object would not be cached, or empty if it would. */
  public static Optional<Skip> skipReason(JsonNode object, FormatOptions options) {
    String kind = text(object.get("kind"));
    String apiVersion = text(object.get("apiVersion"));
    String name = text(object.path("metadata").get("name"));
    if (kind == null || kind.isEmpty() || apiVersion == null || name == null) {
      return Optional.of(Skip.MALFORMED);
    }
    if (!options.caches(CacheTypes.forKind(apiVersion, kind))) {
      return Optional.of(Skip.KIND_NOT_CACHED);
    }
    if (MonikerResolver.isIgnored(object)) {
      return Optional.of(Skip.IGNORED);
    }
    if (options.onlySpinnakerManaged() && MonikerResolver.applicationAnnotation(object).isEmpty()) {
      return Optional.of(Skip.NOT_SPINNAKER_MANAGED);
    }
    return Optional.empty();
  }

  /** The records without relationships to other objects of the account. */
  public static Optional<ManifestCacheRecords> of(
      String account, JsonNode object, FormatOptions options) {
    return of(account, object, options, null);
  }

  /**
   * The records of one object, or empty if Clouddriver would not cache it. With an index, the
   * infrastructure record carries the relationships to the account's other indexed objects too.
   */
  public static Optional<ManifestCacheRecords> of(
      String account, JsonNode object, FormatOptions options, RelationshipIndex index) {
    return of(account, object, options, index, null);
  }

  /**
   * As {@link #of(String, JsonNode, FormatOptions)}, for an object the caller parsed from {@code
   * json} for this alone and hands over. When that text already is the cached manifest ({@link
   * ManifestText}), the manifest attribute is the text, as a {@link RawValue} that a body writes as
   * is (serialising the tree again was a third of the derivation's time). Otherwise the manifest is
   * made from the object itself rather than from a copy (copying was a tenth of a writer's time),
   * so the object afterwards is that manifest (null members dropped, annotations present, a
   * Secret's data gone).
   */
  public static Optional<ManifestCacheRecords> ofSent(
      String account, byte[] json, ObjectNode object, FormatOptions options) {
    return of(account, object, options, null, json);
  }

  /**
   * @param sent the text {@code object} was parsed from and handed over with, or null to copy it
   */
  private static Optional<ManifestCacheRecords> of(
      String account,
      JsonNode object,
      FormatOptions options,
      RelationshipIndex index,
      byte[] sent) {
    if (skipReason(object, options).isPresent()) {
      return Optional.empty();
    }
    String type = typeOf(object);
    String namespace = namespaceOf(object);
    String name = text(object.path("metadata").get("name"));
    String key = CacheKeys.infrastructure(type, account, namespace, name);
    Moniker moniker = MonikerResolver.resolve(type, object);

    Map<String, Set<String>> rels = stickyGroups();
    addAll(rels, ownRelationships(account, object));
    if (index != null) {
      addAll(rels, index.relationshipsOf(key));
    }

    CacheRecord application = null;
    CacheRecord cluster = null;
    CacheTypes.SpinnakerKind spinnakerKind = CacheTypes.spinnakerKind(type);
    String app = moniker.app();
    if ((options.cacheAllApplicationRelationships() || spinnakerKind.hasApplicationRelationship())
        && app != null
        && !app.isEmpty()) {
      String appKey = CacheKeys.application(app);
      rels.computeIfAbsent(CacheTypes.APPLICATIONS, k -> new TreeSet<>()).add(appKey);
      Map<String, Set<String>> appRels = stickyGroups();
      appRels.computeIfAbsent(type, k -> new TreeSet<>()).add(key);
      String clusterName = moniker.cluster();
      if (spinnakerKind.hasClusterRelationship() && clusterName != null && !clusterName.isEmpty()) {
        String clusterKey = CacheKeys.cluster(account, app, clusterName);
        rels.computeIfAbsent(CacheTypes.CLUSTERS, k -> new TreeSet<>()).add(clusterKey);
        appRels.computeIfAbsent(CacheTypes.CLUSTERS, k -> new TreeSet<>()).add(clusterKey);
        Map<String, Set<String>> clusterRels = stickyGroups();
        clusterRels.computeIfAbsent(type, k -> new TreeSet<>()).add(key);
        clusterRels.computeIfAbsent(CacheTypes.APPLICATIONS, k -> new TreeSet<>()).add(appKey);
        cluster =
            new CacheRecord(
                clusterKey,
                CacheTypes.CLUSTERS,
                Map.of("name", clusterName),
                clusterRels,
                CacheRecord.LOGICAL_TTL_SECONDS);
      }
      application =
          new CacheRecord(
              appKey,
              CacheTypes.APPLICATIONS,
              Map.of("name", app),
              appRels,
              CacheRecord.LOGICAL_TTL_SECONDS);
    }

    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("kind", type);
    attributes.put("apiVersion", text(object.get("apiVersion")).toLowerCase(Locale.ROOT));
    attributes.put("name", name);
    attributes.put("namespace", namespace);
    attributes.put("fullResourceName", type + " " + name);
    attributes.put("manifest", manifest(object, type, sent));
    attributes.put("moniker", moniker.toMap());
    CacheRecord infrastructure =
        new CacheRecord(key, type, attributes, rels, CacheRecord.INFRASTRUCTURE_TTL_SECONDS);
    return Optional.of(
        new ManifestCacheRecords(
            account, type, key, moniker, infrastructure, application, cluster));
  }

  public String account() {
    return account;
  }

  public String type() {
    return type;
  }

  public String key() {
    return key;
  }

  public Moniker moniker() {
    return moniker;
  }

  public CacheRecord infrastructure() {
    return infrastructure;
  }

  public Optional<CacheRecord> application() {
    return Optional.ofNullable(application);
  }

  public Optional<CacheRecord> cluster() {
    return Optional.ofNullable(cluster);
  }

  /** Infrastructure record first, then application and cluster contributions if any. */
  public List<CacheRecord> records() {
    List<CacheRecord> all = new ArrayList<>(3);
    all.add(infrastructure);
    if (application != null) {
      all.add(application);
    }
    if (cluster != null) {
      all.add(cluster);
    }
    return all;
  }

  // ---------------------------------------------------------------- object-level helpers

  /** The cache type of an object ({@link CacheTypes#forKind}). */
  public static String typeOf(JsonNode object) {
    return CacheTypes.forKind(text(object.get("apiVersion")), text(object.get("kind")));
  }

  /** metadata.namespace, empty for cluster-scoped objects. */
  public static String namespaceOf(JsonNode object) {
    String ns = text(object.path("metadata").get("namespace"));
    return ns == null ? "" : ns;
  }

  /**
   * Keys of the owners named in metadata.ownerReferences: kind from the reference's kind and
   * apiVersion, namespace of the object itself (Clouddriver does not check that the owner exists).
   */
  public static Set<String> ownerReferenceKeys(String account, JsonNode object) {
    Set<String> keys = new LinkedHashSet<>();
    String namespace = namespaceOf(object);
    for (JsonNode ref : object.path("metadata").path("ownerReferences")) {
      String kind = text(ref.get("kind"));
      String name = text(ref.get("name"));
      keys.add(
          CacheKeys.infrastructure(
              CacheTypes.forKind(text(ref.get("apiVersion")), kind), account, namespace, name));
    }
    return keys;
  }

  /**
   * For an event, the key of its involvedObject (needs apiVersion, kind and name), placed in the
   * event's own namespace as Clouddriver does; empty for anything else.
   */
  public static Optional<String> involvedObjectKey(String account, JsonNode object) {
    if (!CacheTypes.EVENT.equals(typeOf(object))) {
      return Optional.empty();
    }
    JsonNode ref = object.path("involvedObject");
    String apiVersion = text(ref.get("apiVersion"));
    String kind = text(ref.get("kind"));
    String name = text(ref.get("name"));
    if (isEmpty(apiVersion) || isEmpty(kind) || isEmpty(name)) {
      return Optional.empty();
    }
    return Optional.of(
        CacheKeys.infrastructure(
            CacheTypes.forKind(apiVersion, kind), account, namespaceOf(object), name));
  }

  /** Relationships this object has on its own: owner references and an event's involved object. */
  static Map<String, Set<String>> ownRelationships(String account, JsonNode object) {
    Map<String, Set<String>> rels = new TreeMap<>();
    Set<String> keys = new LinkedHashSet<>(ownerReferenceKeys(account, object));
    involvedObjectKey(account, object).ifPresent(keys::add);
    for (String k : keys) {
      CacheKeys.parse(k)
          .ifPresent(p -> rels.computeIfAbsent(p.type(), x -> new TreeSet<>()).add(k));
    }
    return rels;
  }

  /**
   * The manifest as it appears in the body: the object with {@code null} members dropped
   * (Clouddriver's mapper writes with NON_NULL, which also applies to map values), {@code
   * metadata.annotations} present (reading annotations inserts an empty map), and a Secret's {@code
   * data} removed (its handler's sensitive key).
   */
  public static ObjectNode cachedManifest(JsonNode object, String type) {
    return asCachedManifest((ObjectNode) object.deepCopy(), type);
  }

  private static Object manifest(JsonNode object, String type, byte[] sent) {
    if (sent == null) {
      return cachedManifest(object, type);
    }
    String text = ManifestText.of(sent, object, type);
    return text != null ? new RawValue(text) : asCachedManifest((ObjectNode) object, type);
  }

  /** {@link #cachedManifest}, made of the object itself. */
  private static ObjectNode asCachedManifest(ObjectNode manifest, String type) {
    withoutNullMembers(manifest);
    JsonNode metadata = manifest.get("metadata");
    if (metadata instanceof ObjectNode) {
      JsonNode annotations = metadata.get("annotations");
      if (annotations == null || annotations.isNull()) {
        ((ObjectNode) metadata).putObject("annotations");
      }
    }
    if (CacheTypes.SECRET.equals(type)) {
      manifest.remove("data");
    }
    return manifest;
  }

  private static JsonNode withoutNullMembers(JsonNode node) {
    if (node instanceof ObjectNode) {
      ObjectNode obj = (ObjectNode) node;
      Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isNull()) {
          it.remove();
        } else {
          withoutNullMembers(e.getValue());
        }
      }
    } else if (node instanceof ArrayNode) {
      for (JsonNode element : node) {
        withoutNullMembers(element);
      }
    }
    return node;
  }

  static Map<String, Set<String>> stickyGroups() {
    Map<String, Set<String>> rels = new TreeMap<>();
    for (String sticky : CacheTypes.STICKY_TYPES) {
      rels.put(sticky, new TreeSet<>());
    }
    return rels;
  }

  static void addAll(Map<String, Set<String>> into, Map<String, ? extends Set<String>> from) {
    from.forEach((k, v) -> into.computeIfAbsent(k, x -> new TreeSet<>()).addAll(v));
  }

  static String text(JsonNode node) {
    return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }
}
