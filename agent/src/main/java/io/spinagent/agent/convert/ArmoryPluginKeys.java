package io.spinagent.agent.convert;

import io.spinagent.agent.armory.ArmoryKey;
import io.spinagent.agent.armory.ArmoryKey.Treatment;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Every setting of Armory Scale Agent's Clouddriver plugin ({@code kubesvc.*}, and the plugin's
 * entries under {@code spinnaker.extensibility}) and what becomes of it in SpinAgent's plugin
 * ({@code spinagent.*}, see docs/configuration.md). The converter applies it; the plugin section of
 * docs/migrating-from-armory.md is generated from it and checked against it.
 *
 * <p>Longer than most classes: it is a table, one row per Armory key, in the order of Armory's
 * plugin reference.
 */
public final class ArmoryPluginKeys {

  /** A row, and how a value is written in SpinAgent's form. */
  public record Row(ArmoryKey key, UnaryOperator<Object> value) {

    /** The Armory key with each segment in Spring's relaxed form, for matching what was written. */
    String relaxedKey() {
      return relaxed(key.key());
    }
  }

  static final String ARMORY_PLUGIN = "spinnaker.extensibility.plugins.Armory.Kubesvc";
  static final String SPINAGENT_PLUGIN = "spinnaker.extensibility.plugins.SpinAgent.Kubernetes";

  private static final String HA =
      "replicas do not discover each other: they record which replica holds each account's agent"
          + " in Clouddriver's SQL database and forward tunnel requests to it; set"
          + " spinagent.ha.shared-secret and spinagent.ha.advertise-address on every replica"
          + " (high-availability.md)";

  private static final String AUTO_MIGRATE =
      "set spinagent.accounts.auto-migrate.name-patterns (whole names), scan-interval and"
          + " batch-size, and zone-id or agent-id: SpinAgent migrates to the agents you name,"
          + " never to agents it picks (accounts.md)";

  private static final String NO_EVICTION =
      "SpinAgent writes Clouddriver's own cache tables, so there is no other cache to evict";

  private static final List<Row> ROWS =
      List.of(
          // plugin installation
          converted(
              ARMORY_PLUGIN + ".enabled",
              SPINAGENT_PLUGIN + ".enabled",
              "start the plugin",
              "the same, for SpinAgent's plugin"),
          warned(
              ARMORY_PLUGIN + ".version",
              "the Armory plugin release to install",
              "set the SpinAgent release to install in "
                  + SPINAGENT_PLUGIN
                  + ".version (install.md)"),
          warned(
              ARMORY_PLUGIN + ".extensions.armory.kubesvc.enabled",
              "the plugin's extension",
              "SpinAgent's plugin has no extension to switch on"),
          warned(
              "spinnaker.extensibility.repositories.armory-agent-k8s-spinplug-releases",
              "Armory's plugin repository",
              "SpinAgent's plugin comes from its own release (install.md)"),
          // kubesvc.cache
          converted(
              "kubesvc.cache.accountCleanupFrequencySeconds",
              "spinagent.accounts.grace-period",
              "how long accounts no agent serves are kept (600)",
              "an account no agent serves is removed when this grace period passes (default 5m)",
              ArmoryPluginKeys::seconds),
          warned(
              "kubesvc.cache.cacheDefaults",
              "the fixed default kinds",
              "the default kinds are Clouddriver's own; list kinds in spinagent.cache.kinds"),
          converted(
              "kubesvc.cache.cacheKinds",
              "spinagent.cache.kinds",
              "kinds to cache",
              "the same; SpinAgent's default is Clouddriver's set, without Namespace and"
                  + " CustomResourceDefinition: list them to keep caching them"),
          converted(
              "kubesvc.cache.cacheOmitKinds",
              "spinagent.cache.omit-kinds",
              "kinds never to cache",
              "the same"),
          converted(
              "kubesvc.cache.cacheAll",
              "spinagent.cache.cache-all",
              "cache every kind",
              "the same"),
          warned(
              "kubesvc.cache.cacheStreamingPoolCoreSize",
              "threads writing the cache",
              "many accounts per transaction; spinagent.cache.writer-threads (default 1)"),
          warned(
              "kubesvc.cache.cacheStreamingPoolMaxSize",
              "most threads writing the cache",
              "many accounts per transaction; spinagent.cache.writer-threads (default 1)"),
          warned(
              "kubesvc.cache.cleanDataWithUnusedAccounts",
              "remove the cache of accounts no longer used",
              "always done: an account removed or switched off loses its cache rows"),
          unsupported(
              "kubesvc.cache.eventsCleanupFrequencySeconds",
              "how long Kubernetes events are kept",
              "events are not kept in SpinAgent's cache"),
          unsupported(
              "kubesvc.cache.namespaceExpiryMinutes",
              "an in-memory cache of namespaces",
              "namespaces are cached like any other kind"),
          unsupported(
              "kubesvc.cache.onDemandQuickWaitMs",
              "how long a forced recache waits",
              "there is nothing to wait for: every change is streamed and committed as it"
                  + " happens"),
          converted(
              "kubesvc.cache.operationWaitMs",
              "spinagent.operations.timeout",
              "how long an operation waits for the agent (30000)",
              "how long a relayed request waits for the cluster to start answering (default 30s)",
              ArmoryPluginKeys::milliseconds),
          // kubesvc.cluster
          warned("kubesvc.cluster", "how replicas find each other", HA),
          warned("kubesvc.cluster-kubernetes.kubeconfigFile", "endpoint discovery", HA),
          warned("kubesvc.cluster-kubernetes.verifySsl", "endpoint discovery", HA),
          warned("kubesvc.cluster-kubernetes.namespace", "endpoint discovery", HA),
          warned("kubesvc.cluster-kubernetes.httpPortName", "endpoint discovery", HA),
          warned(
              "kubesvc.cluster-kubernetes.clouddriverServiceNamePrefix", "endpoint discovery", HA),
          warned("kubesvc.cluster-kubernetes.useDNS", "endpoint discovery", HA),
          warned("kubesvc.cluster-kubernetes.domainName", "endpoint discovery", HA),
          warned("kubesvc.cluster-kubernetes.failFast", "endpoint discovery", HA),
          warned(
              "kubesvc.credentials.poller.reloadFrequencyMs",
              "how often accounts are reloaded",
              "Clouddriver's own credentials poller loads the accounts SpinAgent defines"
                  + " (credentials.poller.types.kubernetes.reloadFrequencyMs)"),
          unsupported(
              "kubesvc.disableV2Provider",
              "skip the V2 provider account",
              "not applicable: the plugin works with Clouddriver's Kubernetes provider as it is"),
          // kubesvc.dynamicAccounts
          warned(
              "kubesvc.dynamicAccounts.enabled",
              "the dynamic accounts API",
              "the accounts API is always on (its write endpoints need Clouddriver's SQL"
                  + " database); keep port 7002 reachable only by operators"),
          warned(
              "kubesvc.dynamicAccounts.enable",
              "the dynamic accounts API (an older spelling)",
              "the accounts API is always on"),
          warned(
              "kubesvc.dynamicAccounts.maxRetries",
              "retries of a failed account",
              "writing an account's definition is retried with spinagent.accounts"
                  + ".definition-retry-backoff, doubling up to a minute"),
          warned(
              "kubesvc.dynamicAccounts.retryFrequencySeconds",
              "wait between those retries",
              "writing an account's definition is retried with spinagent.accounts"
                  + ".definition-retry-backoff, doubling up to a minute"),
          warned(
              "kubesvc.dynamicAccounts.interceptor.enabled",
              "take over accounts added through Clouddriver's /credentials",
              "set spinagent.accounts.credentials-interceptor.enabled: true and its zone-id or"
                  + " agent-id: Kubernetes accounts created with POST /credentials are migrated to"
                  + " those agents, SpinAgent's accounts are deleted with DELETE"
                  + " /credentials/{name} and changed with PUT /credentials, at their agents"
                  + " (accounts.md)"),
          warned(
              "kubesvc.dynamicAccounts.scanBatchSize", "accounts migrated per scan", AUTO_MIGRATE),
          warned(
              "kubesvc.dynamicAccounts.scanFrequencySeconds",
              "interval between scans",
              AUTO_MIGRATE),
          warned("kubesvc.dynamicAccounts.namePatterns", "accounts to migrate", AUTO_MIGRATE),
          warned(
              "kubesvc.dynamicAccounts.credentialScanNamePatterns",
              "accounts of Clouddriver's credential sources to migrate",
              "set spinagent.accounts.auto-migrate.configured-name-patterns (whole names) for the"
                  + " accounts of Clouddriver's configuration files, with zone-id or agent-id"
                  + " (accounts.md)"),
          warned("kubesvc.dynamicAccounts.scan", "scan for accounts to migrate", AUTO_MIGRATE),
          // kubesvc.grpc
          converted(
              "kubesvc.grpc.auth.x509.enabled",
              "spinagent.grpc.auth.x509.enabled",
              "admit agents by client certificate subject",
              "the same"),
          converted(
              "kubesvc.grpc.auth.x509.filters",
              "spinagent.grpc.auth.x509.filters",
              "subject regular expressions, any of which may match part of the subject",
              "a filter must match the whole subject, so each is written as .*(?:filter).*;"
                  + " subjects are written as Java prints them (RFC 2253: CN=...,O=...)",
              ArmoryPluginKeys::partialMatches),
          converted(
              "kubesvc.grpc.server.address",
              "spinagent.grpc.address",
              "address the agent port binds to (*)",
              "the same; * is written 0.0.0.0",
              ArmoryPluginKeys::address),
          converted(
              "kubesvc.grpc.server.port",
              "spinagent.grpc.port",
              "the agent port (9091)",
              "the same"),
          warned(
              "kubesvc.grpc.server.healthServiceEnabled",
              "serve gRPC's health service",
              "always served on the agent port, without credentials"),
          converted(
              "kubesvc.grpc.server.maxInboundMessageSize",
              "spinagent.grpc.max-inbound-message-size",
              "largest message from an agent (4MB)",
              "the same"),
          converted(
              "kubesvc.grpc.server.security.enabled",
              "spinagent.grpc.security.enabled",
              "TLS on the agent port",
              "the same"),
          converted(
              "kubesvc.grpc.server.security.certificateChain",
              "spinagent.grpc.security.certificate-chain",
              "the server certificate, as file:<path>",
              "a PEM file, leaf first, written as a plain path",
              ArmoryPluginKeys::filePath),
          converted(
              "kubesvc.grpc.server.security.privateKey",
              "spinagent.grpc.security.private-key",
              "its private key, as file:<path>",
              "a PEM PKCS#8 file, written as a plain path",
              ArmoryPluginKeys::filePath),
          unsupported(
              "kubesvc.grpc.server.security.privateKeyPassword",
              "the private key's password",
              "the plugin reads unencrypted keys: decrypt it with openssl pkcs8 -topk8 -nocrypt"),
          converted(
              "kubesvc.grpc.server.security.clientAuth",
              "spinagent.grpc.security.client-auth",
              "NONE, OPTIONAL or REQUIRE",
              "the same"),
          unsupported(
              "kubesvc.grpc.server.security.ciphers",
              "TLS cipher suites",
              "the JVM's default cipher suites are used"),
          converted(
              "kubesvc.grpc.server.security.trustCertCollection",
              "spinagent.grpc.security.trust-cert-collection",
              "CAs of client certificates, as file:<path>",
              "a PEM file, written as a plain path",
              ArmoryPluginKeys::filePath),
          unsupported(
              "kubesvc.grpc.server.security.protocols",
              "TLS versions",
              "the JVM's default TLS versions are used"),
          converted(
              "kubesvc.grpc.server.security.keepAliveHeartbeatSeconds",
              "spinagent.grpc.keep-alive-time",
              "keepalive ping period",
              "the same, as a duration (default 30s)",
              ArmoryPluginKeys::seconds),
          converted(
              "kubesvc.grpc.server.security.KeepAliveTimeOutSeconds",
              "spinagent.grpc.keep-alive-timeout",
              "keepalive timeout",
              "the same, as a duration (default 10s)",
              ArmoryPluginKeys::seconds),
          // kubesvc.heartbeat, jobs, others
          warned(
              "kubesvc.heartbeat.initialDelay",
              "first assignment heartbeat",
              "ownership of accounts is renewed every spinagent.ha.heartbeat-interval (10s)"),
          warned(
              "kubesvc.heartbeat.period",
              "assignment heartbeat period",
              "ownership of accounts is renewed every spinagent.ha.heartbeat-interval (10s)"),
          warned(
              "kubesvc.heartbeat.periodUnit",
              "its unit",
              "ownership of accounts is renewed every spinagent.ha.heartbeat-interval (10s)"),
          warned(
              "kubesvc.heartbeat.enabled",
              "assignment heartbeats",
              "ownership of accounts is renewed every spinagent.ha.heartbeat-interval (10s)"),
          converted(
              "kubesvc.jobs.operation-history.purge.weeks",
              "spinagent.operations.history.max-age",
              "weeks operation history is kept (1)",
              "how long operations are kept (default 7d)",
              ArmoryPluginKeys::weeks),
          warned(
              "kubesvc.jobs.operation-history.purge.cron",
              "when the history is purged",
              "old operations are deleted every spinagent.operations.history.purge-interval (1h)"),
          unsupported(
              "kubesvc.loadBalancer",
              "another way of spreading accounts over agents",
              "an account is streamed by the agent that serves it; other agents of the same"
                  + " cluster stand by"),
          warned(
              "kubesvc.runtime.defaults.onlySpinnakerManaged",
              "cache only Spinnaker's objects, for every account",
              "set per account on the agent: kubernetes.accounts[].onlySpinnakerManaged"),
          warned(
              "kubesvc.runtime.defaults.customResources",
              "how custom resources show in Spinnaker, for every account",
              "set per account on the agent: kubernetes.accounts[].customResources, which reaches"
                  + " the account's Clouddriver definition"),
          warned(
              "kubesvc.runtime.accounts",
              "those two settings per account",
              "set onlySpinnakerManaged and customResources per account on the agent"),
          unsupported(
              "kubesvc.v2-cache-eviction.disable", "evicting the V2 provider's cache", NO_EVICTION),
          unsupported("kubesvc.v2-cache-eviction.batch-size", "kinds per eviction", NO_EVICTION),
          unsupported("kubesvc.v2-cache-eviction.millis", "wait between evictions", NO_EVICTION),
          unsupported(
              "kubesvc.ops.processTime.metric.result.maxLength",
              "length of a metric attribute",
              "SpinAgent's meters have no such attribute (metrics.md)"),
          unsupported(
              "kubesvc.operations.retry.maxRetries",
              "retries of an operation without an agent",
              "a request for an account without a connected agent is answered 503 at once; one"
                  + " that reaches the wrong replica is forwarded (spinagent.ha.*)"),
          unsupported(
              "kubesvc.operations.retry.backoffMs",
              "wait between those retries",
              "requests are not retried by the plugin"),
          unsupported(
              "kubesvc.locks.waitToGetMilliseconds",
              "waiting for a caching lock",
              "there are no caching locks: one agent streams each account"),
          unsupported(
              "kubesvc.locks.cleanupFrequencyMilliseconds",
              "how long a lock is held",
              "there are no caching locks: one agent streams each account"));

  private ArmoryPluginKeys() {}

  public static List<Row> rows() {
    return ROWS;
  }

  /** The row whose key is {@code path} (segments in any relaxed spelling) or one of its parents. */
  static Optional<Row> rowFor(String path) {
    String relaxed = relaxed(path);
    return ROWS.stream()
        .filter(
            row -> relaxed.equals(row.relaxedKey()) || relaxed.startsWith(row.relaxedKey() + "."))
        .findFirst();
  }

  /** True when some row lies under {@code path}: there is more to find below it. */
  static boolean hasRowsUnder(String path) {
    String prefix = relaxed(path) + ".";
    return ROWS.stream().anyMatch(row -> row.relaxedKey().startsWith(prefix));
  }

  /**
   * Spring's relaxed form of each segment: {@code cache-kinds}, {@code cacheKinds} and {@code
   * cache_kinds} are one key. Segments of the plugin id ({@code Armory.Kubesvc}) are map keys and
   * compare exactly, but ignoring case does them no harm.
   */
  static String relaxed(String path) {
    return path.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }

  // Value forms: Armory's plugin takes numbers of seconds or milliseconds and file: URLs.

  private static Object seconds(Object value) {
    return number(value) + "s";
  }

  private static Object milliseconds(Object value) {
    return number(value) + "ms";
  }

  private static Object weeks(Object value) {
    return Math.multiplyExact(number(value), 7L) + "d";
  }

  private static long number(Object value) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    try {
      return Long.parseLong(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a whole number, got '" + value + "'");
    }
  }

  private static Object filePath(Object value) {
    String text = String.valueOf(value).trim();
    if (text.startsWith("file://")) {
      return text.substring("file://".length());
    }
    return text.startsWith("file:") ? text.substring("file:".length()) : text;
  }

  private static Object address(Object value) {
    return "*".equals(String.valueOf(value).trim()) ? "0.0.0.0" : value;
  }

  private static Object partialMatches(Object value) {
    if (!(value instanceof List<?> filters)) {
      throw new IllegalArgumentException("expected a list of regular expressions");
    }
    return filters.stream().map(filter -> ".*(?:" + filter + ").*").toList();
  }

  private static Row converted(String key, String spinAgentKey, String armory, String spinAgent) {
    return converted(key, spinAgentKey, armory, spinAgent, UnaryOperator.identity());
  }

  private static Row converted(
      String key,
      String spinAgentKey,
      String armory,
      String spinAgent,
      UnaryOperator<Object> value) {
    return new Row(
        new ArmoryKey(key, Treatment.CONVERTED, spinAgentKey, armory, spinAgent, null), value);
  }

  private static Row warned(String key, String armory, String spinAgent) {
    return new Row(
        new ArmoryKey(key, Treatment.WARNED, null, armory, spinAgent, null),
        UnaryOperator.identity());
  }

  private static Row unsupported(String key, String armory, String spinAgent) {
    return new Row(
        new ArmoryKey(key, Treatment.UNSUPPORTED, null, armory, spinAgent, null),
        UnaryOperator.identity());
  }
}
