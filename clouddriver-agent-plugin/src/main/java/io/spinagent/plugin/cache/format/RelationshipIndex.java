package io.spinagent.plugin.cache.format;

import static io.spinagent.plugin.cache.format.ManifestCacheRecords.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one account's cached objects say about each other, kept small (no manifests), so that the
 * relationships of any object can be computed when it or a neighbour changes. Feed it every object
 * that is cached (see {@link ManifestCacheRecords#skipReason}) and remove deleted ones.
 *
 * <p>Edges, each visible from both ends (Clouddriver makes every relationship bidirectional):
 *
 * <ul>
 *   <li>owner reference: object → owner (kept even if the owner is not indexed);
 *   <li>event → involved object (kept even if the object is not indexed);
 *   <li>service (apiVersion v1, non-empty spec.selector) ↔ every replicaSet (apps/v1) of the same
 *       namespace whose spec.template.metadata.labels contain all selector pairs — only
 *       replicaSets, never pods, statefulSets or daemonSets;
 *   <li>ingress → the services of its namespace named by its default backend and its rule paths, if
 *       they are indexed;
 *   <li>statefulSet → the service of its namespace named by spec.serviceName, if indexed.
 * </ul>
 *
 * Not thread-safe: use one per account under the account's write lock.
 */
public final class RelationshipIndex {

  private final String account;
  private final Map<String, Entry> entries = new HashMap<>();

  /** target key → keys of indexed objects whose owner references / involvedObject name it */
  private final Map<String, Set<String>> reverseDirect = new HashMap<>();

  /** namespace → type → name → key, for the kinds matched by name or selector */
  private final Map<String, Map<String, Map<String, String>>> byNamespace = new HashMap<>();

  public RelationshipIndex(String account) {
    this.account = account;
  }

  public String account() {
    return account;
  }

  public int size() {
    return entries.size();
  }

  public boolean contains(String key) {
    return entries.containsKey(key);
  }

  /** Adds or replaces an object; returns its key. */
  public String put(JsonNode object) {
    return put(Entry.of(account, object));
  }

  /** Adds or replaces an object by the facts {@link Entry#of} took from it; returns its key. */
  public String put(Entry entry) {
    remove(entry.key);
    entries.put(entry.key, entry);
    for (String target : entry.direct) {
      reverseDirect.computeIfAbsent(target, k -> new HashSet<>()).add(entry.key);
    }
    if (entry.matchable()) {
      byNamespace
          .computeIfAbsent(entry.namespace, k -> new HashMap<>())
          .computeIfAbsent(entry.type, k -> new HashMap<>())
          .put(entry.name, entry.key);
    }
    return entry.key;
  }

  /** Removes an object by key; returns whether it was indexed. */
  public boolean remove(String key) {
    Entry old = entries.remove(key);
    if (old == null) {
      return false;
    }
    for (String target : old.direct) {
      Set<String> sources = reverseDirect.get(target);
      if (sources != null) {
        sources.remove(key);
        if (sources.isEmpty()) {
          reverseDirect.remove(target);
        }
      }
    }
    if (old.matchable()) {
      Map<String, Map<String, String>> types = byNamespace.get(old.namespace);
      if (types != null) {
        Map<String, String> names = types.get(old.type);
        if (names != null) {
          names.remove(old.name);
          if (names.isEmpty()) {
            types.remove(old.type);
          }
        }
        if (types.isEmpty()) {
          byNamespace.remove(old.namespace);
        }
      }
    }
    return true;
  }

  /**
   * Infrastructure relationships of the object with this key, grouped by the related key's type;
   * works for keys that are not indexed too (then only the edges other objects point at it).
   */
  public Map<String, SortedSet<String>> relationshipsOf(String key) {
    Set<String> related = new LinkedHashSet<>();
    Entry e = entries.get(key);
    if (e != null) {
      related.addAll(e.direct);
      related.addAll(implicit(e));
    }
    // implicit edges need both ends indexed, so an unindexed key only has these reverse ones
    related.addAll(reverseDirect.getOrDefault(key, Set.of()));
    Map<String, SortedSet<String>> grouped = new TreeMap<>();
    for (String k : related) {
      CacheKeys.parse(k)
          .ifPresent(p -> grouped.computeIfAbsent(p.type(), x -> new TreeSet<>()).add(k));
    }
    return grouped;
  }

  /**
   * Indexed objects whose bodies list this key — the rows to rewrite when this object appears,
   * changes or goes. Call before and after a change and rewrite the union.
   */
  public Set<String> indexedNeighbours(String key) {
    Set<String> result = new TreeSet<>();
    for (SortedSet<String> keys : relationshipsOf(key).values()) {
      for (String k : keys) {
        if (entries.containsKey(k)) {
          result.add(k);
        }
      }
    }
    result.remove(key);
    return result;
  }

  private Set<String> implicit(Entry e) {
    Set<String> result = new LinkedHashSet<>();
    Map<String, Map<String, String>> ns = byNamespace.getOrDefault(e.namespace, Map.of());
    switch (e.type) {
      case CacheTypes.SERVICE:
        if (e.selector != null && !e.selector.isEmpty()) {
          for (String rsKey : ns.getOrDefault(CacheTypes.REPLICA_SET, Map.of()).values()) {
            Entry rs = entries.get(rsKey);
            if (rs != null && selects(e.selector, rs.podTemplateLabels)) {
              result.add(rsKey);
            }
          }
        }
        for (String ingKey : ns.getOrDefault(CacheTypes.INGRESS, Map.of()).values()) {
          Entry ing = entries.get(ingKey);
          if (ing != null && ing.backendServices.contains(e.name)) {
            result.add(ingKey);
          }
        }
        for (String stsKey : ns.getOrDefault(CacheTypes.STATEFUL_SET, Map.of()).values()) {
          Entry sts = entries.get(stsKey);
          if (sts != null && e.name.equals(sts.serviceName)) {
            result.add(stsKey);
          }
        }
        break;
      case CacheTypes.REPLICA_SET:
        for (String svcKey : ns.getOrDefault(CacheTypes.SERVICE, Map.of()).values()) {
          Entry svc = entries.get(svcKey);
          if (svc != null
              && svc.selector != null
              && !svc.selector.isEmpty()
              && selects(svc.selector, e.podTemplateLabels)) {
            result.add(svcKey);
          }
        }
        break;
      case CacheTypes.INGRESS:
        for (String service : e.backendServices) {
          String svcKey = ns.getOrDefault(CacheTypes.SERVICE, Map.of()).get(service);
          if (svcKey != null) {
            result.add(svcKey);
          }
        }
        break;
      case CacheTypes.STATEFUL_SET:
        if (e.serviceName != null && !e.serviceName.isEmpty()) {
          String svcKey = ns.getOrDefault(CacheTypes.SERVICE, Map.of()).get(e.serviceName);
          if (svcKey != null) {
            result.add(svcKey);
          }
        }
        break;
      default:
        break;
    }
    return result;
  }

  private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
    if (labels == null) {
      return false;
    }
    for (Map.Entry<String, String> pair : selector.entrySet()) {
      if (!pair.getValue().equals(labels.get(pair.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The facts kept about one object. Taken from the object alone, so they can be taken on any
   * thread, before the object's turn to be indexed.
   */
  public static final class Entry {
    final String key;
    final String type;
    final String namespace;
    final String name;
    final Set<String> direct;
    final Map<String, String> podTemplateLabels;
    final Map<String, String> selector;
    final Set<String> backendServices;
    final String serviceName;

    private Entry(
        String key,
        String type,
        String namespace,
        String name,
        Set<String> direct,
        Map<String, String> podTemplateLabels,
        Map<String, String> selector,
        Set<String> backendServices,
        String serviceName) {
      this.key = key;
      this.type = type;
      this.namespace = namespace;
      this.name = name;
      this.direct = direct;
      this.podTemplateLabels = podTemplateLabels;
      this.selector = selector;
      this.backendServices = backendServices;
      this.serviceName = serviceName;
    }

    boolean matchable() {
      return CacheTypes.SERVICE.equals(type)
          || CacheTypes.REPLICA_SET.equals(type)
          || CacheTypes.INGRESS.equals(type)
          || CacheTypes.STATEFUL_SET.equals(type);
    }

    /**
     * The entry of a Kubernetes object of {@code account}.
     *
     * @throws IllegalArgumentException when the object has no {@code metadata.name}
     */
    public static Entry of(String account, JsonNode object) {
      String type = ManifestCacheRecords.typeOf(object);
      String namespace = ManifestCacheRecords.namespaceOf(object);
      String name = text(object.path("metadata").get("name"));
      if (name == null) {
        throw new IllegalArgumentException("object without metadata.name");
      }
      String key = CacheKeys.infrastructure(type, account, namespace, name);
      Set<String> direct =
          new LinkedHashSet<>(ManifestCacheRecords.ownerReferenceKeys(account, object));
      ManifestCacheRecords.involvedObjectKey(account, object).ifPresent(direct::add);
      String apiVersion = text(object.get("apiVersion"));
      Map<String, String> labels = null;
      Map<String, String> selector = null;
      Set<String> backends = Set.of();
      String serviceName = null;
      switch (type) {
        case CacheTypes.REPLICA_SET:
          // KubernetesReplicaSetHandler.getPodTemplateLabels: apps/v1 only
          if ("apps/v1".equalsIgnoreCase(apiVersion)) {
            labels =
                stringMap(object.path("spec").path("template").path("metadata").path("labels"));
          }
          break;
        case CacheTypes.SERVICE:
          // KubernetesServiceHandler.getSelector: v1 only
          if ("v1".equalsIgnoreCase(apiVersion)) {
            selector = stringMap(object.path("spec").path("selector"));
          }
          break;
        case CacheTypes.INGRESS:
          backends = ingressBackends(apiVersion, object.path("spec"));
          break;
        case CacheTypes.STATEFUL_SET:
          serviceName = text(object.path("spec").get("serviceName"));
          break;
        default:
          break;
      }
      return new Entry(
          key,
          type,
          namespace,
          name,
          Collections.unmodifiableSet(direct),
          labels,
          selector,
          backends,
          serviceName);
    }

    private static Map<String, String> stringMap(JsonNode node) {
      if (node == null || !node.isObject()) {
        return null;
      }
      Map<String, String> map = new LinkedHashMap<>();
      node.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
      return map;
    }

    /**
     * KubernetesIngressHandler.attachedServices: extensions/v1beta1 and networking.k8s.io/v1beta1
     * read {@code backend.serviceName}; networking.k8s.io/v1 reads {@code
     * defaultBackend.service.name}; plus every {@code rules[].http.paths[].backend}. Other versions
     * give nothing. In v1, a backend without {@code service} (a resource backend) makes upstream
     * fail for the whole ingress, which then has no services; mirrored here.
     */
    private static Set<String> ingressBackends(String apiVersion, JsonNode spec) {
      String version = apiVersion == null ? "" : apiVersion.toLowerCase(java.util.Locale.ROOT);
      boolean v1 = version.equals("networking.k8s.io/v1");
      boolean beta =
          version.equals("extensions/v1beta1") || version.equals("networking.k8s.io/v1beta1");
      if (!v1 && !beta) {
        return Set.of();
      }
      Set<String> names = new LinkedHashSet<>();
      try {
        JsonNode def = spec.get(v1 ? "defaultBackend" : "backend");
        if (def != null && !def.isNull()) {
          addBackend(names, def, v1);
        }
        for (JsonNode rule : spec.path("rules")) {
          JsonNode http = rule.get("http");
          if (http != null && !http.isNull()) {
            for (JsonNode path : http.path("paths")) {
              JsonNode backend = path.get("backend");
              if (backend != null && !backend.isNull()) {
                addBackend(names, backend, v1);
              }
            }
          }
        }
      } catch (IllegalStateException e) {
        return Set.of();
      }
      return Collections.unmodifiableSet(names);
    }

    private static void addBackend(Set<String> names, JsonNode backend, boolean v1) {
      if (v1) {
        JsonNode service = backend.get("service");
        if (service == null || service.isNull()) {
          throw new IllegalStateException("resource backend");
        }
        String name = text(service.get("name"));
        if (name != null) {
          names.add(name);
        }
      } else {
        String name = text(backend.get("serviceName"));
        if (name != null) {
          names.add(name);
        }
      }
    }
  }
}
