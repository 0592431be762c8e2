package io.spinagent.plugin.cache.format;

import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Cache type names (the infrastructure key's kind part, the relationship group name and the table
 * suffix) as Clouddriver's {@code KubernetesKind}/{@code KubernetesApiGroup} spell them at v5.90.0,
 * the Spinnaker kind of each, and cats-sql's table and agent-column naming ({@code SqlNames}).
 */
public final class CacheTypes {

  public static final String APPLICATIONS = "applications";
  public static final String CLUSTERS = "clusters";

  public static final String DEPLOYMENT = "deployment";
  public static final String REPLICA_SET = "replicaSet";
  public static final String STATEFUL_SET = "statefulSet";
  public static final String DAEMON_SET = "daemonSet";
  public static final String JOB = "job";
  public static final String CRON_JOB = "cronJob";
  public static final String POD = "pod";
  public static final String SERVICE = "service";
  public static final String INGRESS = "ingress";
  public static final String NETWORK_POLICY = "networkPolicy";
  public static final String NAMESPACE = "namespace";
  public static final String CONFIG_MAP = "configMap";
  public static final String SECRET = "secret";
  public static final String EVENT = "event";
  public static final String CUSTOM_RESOURCE_DEFINITION = "customResourceDefinition";

  /** Clouddriver's type for an object without a kind ({@code KubernetesKind.NONE}). */
  public static final String NONE = "none";

  /** Relationship groups every Kubernetes cache body carries, empty if need be ("sticky kinds"). */
  public static final Set<String> STICKY_TYPES = Set.of(SERVICE, POD);

  /**
   * The kinds Clouddriver caches when neither {@code kubernetes.cache.cacheAll} nor {@code
   * cacheKinds} is configured: those mapped to the Spinnaker kinds of the classic infrastructure
   * screens (server group managers, server groups, instances, load balancers, security groups).
   */
  public static final Set<String> DEFAULT_CACHED_TYPES =
      Set.of(
          DEPLOYMENT,
          REPLICA_SET,
          STATEFUL_SET,
          DAEMON_SET,
          JOB,
          CRON_JOB,
          POD,
          SERVICE,
          INGRESS,
          NETWORK_POLICY);

  /**
   * Every cache type Clouddriver's Kubernetes provider caches and searches at v5.90.0: the kinds of
   * its handlers ({@code KubernetesKindProperties.getGlobalKindProperties}, each with a {@code
   * KubernetesHandler}; {@code none} is the unregistered custom resources'), and the logical {@code
   * applications} and {@code clusters}. Its search ({@code KubernetesSearchProvider}) asks the
   * cache for every one of them, and cats-sql retries a type whose table does not exist. Of the
   * kinds registered above, {@code csiDriver} and {@code csiNode} have no handler: Clouddriver
   * neither caches nor searches them.
   */
  public static final Set<String> CLOUDDRIVER_TYPES =
      Set.of(
          "apiService",
          "clusterRole",
          "clusterRoleBinding",
          CONFIG_MAP,
          "controllerRevision",
          CUSTOM_RESOURCE_DEFINITION,
          CRON_JOB,
          DAEMON_SET,
          DEPLOYMENT,
          EVENT,
          "horizontalpodautoscaler",
          INGRESS,
          JOB,
          "limitRange",
          "mutatingWebhookConfiguration",
          NAMESPACE,
          NETWORK_POLICY,
          "persistentVolume",
          "persistentVolumeClaim",
          POD,
          "podPreset",
          "podSecurityPolicy",
          "podDisruptionBudget",
          REPLICA_SET,
          "role",
          "roleBinding",
          SECRET,
          SERVICE,
          "serviceAccount",
          STATEFUL_SET,
          "storageClass",
          "validatingWebhookConfiguration",
          NONE,
          APPLICATIONS,
          CLUSTERS);

  /** Spinnaker's classification of a Kubernetes kind ({@code SpinnakerKind}). */
  public enum SpinnakerKind {
    SERVER_GROUP_MANAGERS,
    SERVER_GROUPS,
    INSTANCES,
    LOAD_BALANCERS,
    SECURITY_GROUPS,
    CONFIGS,
    UNCLASSIFIED;

    /** Kinds linked to their application (and, for some, cluster) by default. */
    public boolean hasApplicationRelationship() {
      return this == LOAD_BALANCERS
          || this == SECURITY_GROUPS
          || this == SERVER_GROUPS
          || this == SERVER_GROUP_MANAGERS;
    }

    public boolean hasClusterRelationship() {
      return this == SERVER_GROUPS || this == SERVER_GROUP_MANAGERS;
    }
  }

  private static final Set<String> NATIVE_GROUPS =
      Set.of(
          "",
          "core",
          "batch",
          "apps",
          "extensions",
          "storage.k8s.io",
          "apiextensions.k8s.io",
          "apiregistration.k8s.io",
          "autoscaling",
          "admissionregistration.k8s.io",
          "policy",
          "scheduling.k8s.io",
          "settings.k8s.io",
          "authorization.k8s.io",
          "authentication.k8s.io",
          "rbac.authorization.k8s.io",
          "certificates.k8s.io",
          "networking.k8s.io");

  /** Lower-cased kind name or alias → Clouddriver's name for the registered (native) kinds. */
  private static final Map<String, String> REGISTERED = new HashMap<>();

  private static final Map<String, SpinnakerKind> SPINNAKER_KINDS = new HashMap<>();

  static {
    register("apiService");
    register("clusterRole");
    register("clusterRoleBinding");
    register(CONFIG_MAP, "cm");
    register("controllerRevision");
    register(CUSTOM_RESOURCE_DEFINITION, "crd");
    register(CRON_JOB);
    register("csiDriver");
    register("csiNode");
    register(DAEMON_SET, "ds");
    register(DEPLOYMENT, "deploy");
    register(EVENT);
    // sic: Clouddriver spells this one in lower case
    register("horizontalpodautoscaler", "hpa");
    register(INGRESS);
    register(JOB);
    register("limitRange");
    register("mutatingWebhookConfiguration");
    register(NAMESPACE, "ns");
    register(NETWORK_POLICY, "netpol");
    register("persistentVolume", "pv");
    register("persistentVolumeClaim", "pvc");
    register(POD, "po");
    register("podPreset");
    register("podSecurityPolicy");
    register("podDisruptionBudget");
    register(REPLICA_SET, "rs");
    register("role");
    register("roleBinding");
    register(SECRET);
    register(SERVICE, "svc");
    register("serviceAccount", "sa");
    register(STATEFUL_SET);
    register("storageClass", "sc");
    register("validatingWebhookConfiguration");

    SPINNAKER_KINDS.put(DEPLOYMENT, SpinnakerKind.SERVER_GROUP_MANAGERS);
    for (String t : new String[] {REPLICA_SET, STATEFUL_SET, DAEMON_SET, JOB, CRON_JOB}) {
      SPINNAKER_KINDS.put(t, SpinnakerKind.SERVER_GROUPS);
    }
    SPINNAKER_KINDS.put(POD, SpinnakerKind.INSTANCES);
    SPINNAKER_KINDS.put(SERVICE, SpinnakerKind.LOAD_BALANCERS);
    SPINNAKER_KINDS.put(INGRESS, SpinnakerKind.LOAD_BALANCERS);
    SPINNAKER_KINDS.put(NETWORK_POLICY, SpinnakerKind.SECURITY_GROUPS);
    for (String t :
        new String[] {CONFIG_MAP, SECRET, "persistentVolume", "persistentVolumeClaim"}) {
      SPINNAKER_KINDS.put(t, SpinnakerKind.CONFIGS);
    }
  }

  private static void register(String name, String... aliases) {
    REGISTERED.put(name.toLowerCase(Locale.ROOT), name);
    for (String alias : aliases) {
      REGISTERED.put(alias.toLowerCase(Locale.ROOT), name);
    }
  }

  private CacheTypes() {}

  public static boolean isLogical(String type) {
    return APPLICATIONS.equals(type) || CLUSTERS.equals(type);
  }

  /** The API group of an apiVersion ({@code apps/v1} → {@code apps}; {@code v1} → empty). */
  public static String apiGroup(String apiVersion) {
    if (apiVersion == null) {
      return "";
    }
    String lower = apiVersion.toLowerCase(Locale.ROOT);
    int slash = lower.indexOf('/');
    return slash > 0 ? lower.substring(0, slash) : "";
  }

  public static boolean isNativeGroup(String group) {
    return NATIVE_GROUPS.contains(group == null ? "" : group.toLowerCase(Locale.ROOT));
  }

  /**
   * The cache type of a Kubernetes object with this apiVersion and kind. Kinds of the built-in
   * groups are matched case-insensitively (aliases too) against Clouddriver's registry and take its
   * spelling ({@code ReplicaSet} → {@code replicaSet}); an unregistered kind of a built-in group
   * keeps the manifest's spelling ({@code Endpoints}); a kind of any other group is {@code
   * <Kind>.<group>} ({@code Certificate.cert-manager.io}, {@code Lease.coordination.k8s.io}).
   */
  public static String forKind(String apiVersion, String kind) {
    if (kind == null || kind.isEmpty()) {
      return NONE;
    }
    String group = apiGroup(apiVersion);
    if (isNativeGroup(group)) {
      String registered = REGISTERED.get(kind.toLowerCase(Locale.ROOT));
      return registered != null ? registered : kind;
    }
    return kind + "." + group;
  }

  /** The Spinnaker kind of a cache type; custom and unlisted kinds are UNCLASSIFIED. */
  public static SpinnakerKind spinnakerKind(String type) {
    return SPINNAKER_KINDS.getOrDefault(type, SpinnakerKind.UNCLASSIFIED);
  }

  /** Database limits cats-sql applies ({@code SqlConstraintsInitializer} defaults). */
  public enum Dialect {
    MYSQL(64, 352, 127),
    POSTGRES(63, Integer.MAX_VALUE, Integer.MAX_VALUE);

    public final int maxTableNameLength;
    public final int maxIdLength;
    public final int maxAgentLength;

    Dialect(int maxTableNameLength, int maxIdLength, int maxAgentLength) {
      this.maxTableNameLength = maxTableNameLength;
      this.maxIdLength = maxIdLength;
      this.maxAgentLength = maxAgentLength;
    }
  }

  private static final Pattern SANITIZE = Pattern.compile("[^A-Za-z0-9_]");
  private static final String TABLE_PREFIX = "cats_v1_";

  /**
   * Resource table of a type, e.g. {@code cats_v1_replicaSet} ({@code sql.table-namespace}
   * optional).
   */
  public static String resourceTable(String type, String tableNamespace, int maxTableNameLength) {
    return tableName(sanitize(type), "", tableNamespace, maxTableNameLength);
  }

  public static String resourceTable(String type, String tableNamespace, Dialect dialect) {
    return resourceTable(type, tableNamespace, dialect.maxTableNameLength);
  }

  /** Relationship table of a type, e.g. {@code cats_v1_replicaSet_rel}. */
  public static String relTable(String type, String tableNamespace, int maxTableNameLength) {
    return tableName(sanitize(type), "_rel", tableNamespace, maxTableNameLength);
  }

  public static String relTable(String type, String tableNamespace, Dialect dialect) {
    return relTable(type, tableNamespace, dialect.maxTableNameLength);
  }

  static String sanitize(String type) {
    return SANITIZE.matcher(type).replaceAll("_");
  }

  /**
   * cats-sql's rule: {@code cats_v1_[<ns>_]<name><suffix>} if strictly shorter than the limit;
   * otherwise the name is cut and the first 16 hex digits of murmur3_128(name + suffix) appended
   * before the suffix; if even that does not fit, the suffix is dropped.
   */
  static String tableName(String name, String suffix, String tableNamespace, int max) {
    String base = tableNamespace == null ? TABLE_PREFIX : TABLE_PREFIX + tableNamespace + "_";
    String plain = base + name + suffix;
    if (plain.length() < max) {
      return plain;
    }
    String hash = murmurHex(name + suffix).substring(0, 16);
    int available = max - base.length() - suffix.length() - hash.length() - 1;
    if (available >= 0) {
      return base + name.substring(0, available + 1) + hash + suffix;
    }
    if (available + suffix.length() >= 0) {
      return base + name.substring(0, available + suffix.length() + 1) + hash;
    }
    throw new IllegalArgumentException("table namespace " + tableNamespace + " is too long");
  }

  /**
   * The value cats-sql stores in the {@code agent} column (and in {@code rel_agent}): unchanged if
   * it fits, otherwise cut and completed with murmur3_128 hex digits ({@code
   * SqlNames.checkAgentName}).
   */
  public static String agentColumn(String agent, int maxAgentLength) {
    if (agent == null || agent.length() <= maxAgentLength) {
      return agent;
    }
    String hash = murmurHex(agent);
    int colon = agent.indexOf(':');
    if (colon > maxAgentLength - 2) {
      throw new IllegalArgumentException("type of agent " + agent + " is too long");
    }
    int available = Math.max(maxAgentLength - hash.length() - 1, colon);
    int hashLength = Math.min(hash.length(), maxAgentLength - colon - 1);
    return agent.substring(0, available + 1) + hash.substring(0, hashLength);
  }

  private static String murmurHex(String s) {
    return Hashing.murmur3_128().hashBytes(s.getBytes(StandardCharsets.UTF_8)).toString();
  }
}
