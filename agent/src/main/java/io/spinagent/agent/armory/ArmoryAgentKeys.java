package io.spinagent.agent.armory;

import io.spinagent.agent.armory.ArmoryKey.Treatment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every key of Armory Scale Agent's agent configuration ({@code armory-agent.yml}, as its public
 * reference documents it) and what SpinAgent's agent does with it. The table drives the agent's
 * handling of keys it does not apply ({@link Treatment#WARNED}: accepted with this warning, dropped
 * by the converter); the binder implements the others and {@code ArmoryAgentFilesSpec} checks that
 * it does so as each row says. docs/migrating-from-armory.md's table of the agent's keys is
 * generated from this one and checked against it.
 *
 * <p>Longer than most classes: it is a table, one row per Armory key, in the reference's order.
 */
public final class ArmoryAgentKeys {

  private static final String NOT_USED =
      "the agent does not use it; the Kubernetes account that Clouddriver sees is defined by the"
          + " plugin";

  private static final String DYNAMIC_ACCOUNTS =
      "the agent always serves the accounts Clouddriver sends it; creating and migrating them is"
          + " the plugin's accounts API (POST /spinagent/accounts, POST"
          + " /spinagent/accounts/migrate)";

  private static final String RETRIES =
      "the agent's watches list and watch again with backoff on their own; a relayed request gets"
          + " the API server's answer once, and Clouddriver's operation decides whether to retry";

  private static final String SERVER_SIDE_APPLY =
      "deploys are made by Clouddriver's kubectl through the agent's tunnel, so whether server-side"
          + " apply is used is Clouddriver's choice (its strategy.spinnaker.io/server-side-apply"
          + " annotation); the agent relays what kubectl sends";

  private static final String LOG_FILE =
      "SpinAgent logs to standard output only, where the container runtime collects and rotates"
          + " the logs";

  private static final String CACHING =
      "the agent's watches do the caching; the plugin's spinagent.cache.* decides what Clouddriver"
          + " caches";

  private static final String KUBECTL =
      "Clouddriver runs kubectl itself, against the plugin's tunnel to this agent";

  private static final List<ArmoryKey> ROWS =
      List.of(
          // clouddriver.*
          same("clouddriver.grpc", "Clouddriver's gRPC endpoint, host:port", "the same"),
          same(
              "clouddriver.insecure",
              "plaintext instead of TLS; true by default since Armory's agent 1.0.42",
              "the same, but the default is false (TLS): a file written for Armory that leaves it"
                  + " out is warned about, and the converter writes insecure: true"),
          same(
              "clouddriver.noProxy",
              "ignore HTTP_PROXY, HTTPS_PROXY and NO_PROXY for the connection to Clouddriver",
              "the same: otherwise the connection goes through HTTPS_PROXY (HTTP CONNECT) unless"
                  + " NO_PROXY matches"),
          same("clouddriver.auth.token", "a bearer token for Clouddriver", "the same"),
          same(
              "clouddriver.auth.tokenCommand.command",
              "a command that prints a fresh token",
              "the same: run without a shell, stopped after 30 seconds, its output read up to"
                  + " 64Ki"),
          same("clouddriver.auth.tokenCommand.args", "the command's arguments", "the same"),
          same(
              "clouddriver.auth.tokenCommand.format",
              "raw (the output is the token) or json (an object with a token field; also when"
                  + " empty)",
              "the same"),
          same(
              "clouddriver.auth.tokenCommand.refreshIntervalSeconds",
              "how often the command is run (default 0)",
              "a token is reused for this many seconds; 0 runs the command for every connection"
                  + " to Clouddriver"),
          same(
              "clouddriver.keepAliveHeartbeatSeconds",
              "interval of keepalive pings (20); 0: no pings",
              "the same, 0 included"),
          converted(
              "clouddriver.keepAliveTimeOutSeconds",
              "clouddriver.keepAliveTimeoutSeconds",
              "how long a ping may go unanswered (Armory's spelling)",
              "read as written; the converter writes SpinAgent's spelling. 0 means gRPC's default"
                  + " (20 seconds)"),
          warned(
              "clouddriver.keepAliveOperationSeconds",
              "restart the connection when no operation arrived for this many seconds",
              "a healthy connection is never restarted; a dead one is noticed by keepalive pings"
                  + " and heartbeats and reopened with clouddriver.backoff",
              "0"),
          converted(
              "clouddriver.backoff.baseDelay",
              "clouddriver.backoff.baseDelay",
              "first reconnection delay in nanoseconds (1000000000)",
              "a whole number is read as nanoseconds, as Armory does (at least 1000000, one"
                  + " millisecond); the converter writes a duration such as 1s"),
          same(
              "clouddriver.backoff.multiplier",
              "growth of the delay per attempt (1.6)",
              "the same"),
          same("clouddriver.backoff.jitter", "randomisation of each delay (0.2)", "the same"),
          converted(
              "clouddriver.backoff.maxDelay",
              "clouddriver.backoff.maxDelay",
              "cap on the delay in nanoseconds (120000000000)",
              "a whole number is read as nanoseconds, as Armory does; the converter writes a"
                  + " duration such as 2m"),
          warned(
              "clouddriver.responseRetries.enabled",
              "retries of sending an operation's result to Clouddriver",
              "results stream back on the session; if it breaks, Clouddriver answers the request"
                  + " with 502 and its operation decides whether to retry (changes are never lost:"
                  + " they are resent from the outbox after a reconnect)",
              null),
          warned(
              "clouddriver.responseRetries.maxRetries",
              "how often the result is sent again",
              "results are not resent; see clouddriver.responseRetries.enabled",
              null),
          warned(
              "clouddriver.responseRetries.backOffMs",
              "wait between those retries",
              "results are not resent; see clouddriver.responseRetries.enabled",
              null),
          same(
              "clouddriver.tls.serverName",
              "name expected in Clouddriver's certificate",
              "the same"),
          same(
              "clouddriver.tls.insecureSkipVerify",
              "accept any certificate from Clouddriver",
              "the same"),
          same(
              "clouddriver.tls.clientCertFile",
              "client certificate for mutual TLS",
              "the same (PEM)"),
          same(
              "clouddriver.tls.clientKeyFile",
              "its private key",
              "the same: a PEM key in PKCS#8, PKCS#1 (RSA) or SEC 1 (EC) form"),
          same(
              "clouddriver.tls.clientKeyFilePassword",
              "the password of an encrypted key file",
              "the same (also as encrypted:env!n:<VARIABLE> or encrypted:file!f:<path>)"),
          converted(
              "clouddriver.tls.clientKeyPassword",
              "clouddriver.tls.clientKeyFilePassword",
              "the spelling of Armory's mTLS guide",
              "read as written; the converter writes clientKeyFilePassword"),
          same(
              "clouddriver.tls.cacertFile",
              "CA bundle for Clouddriver's certificate (default: the system's)",
              "the same; default: the JVM's trust store"),
          // dynamic accounts: plugin settings that Armory's service table also lists
          warned(
              "dynamicAccounts.interceptor.enabled",
              "intercept accounts added through Clouddriver's /credentials",
              DYNAMIC_ACCOUNTS,
              null),
          warned("dynamicAccounts.enabled", "the dynamic accounts feature", DYNAMIC_ACCOUNTS, null),
          warned(
              "dynamicAccounts.scanBatchSize",
              "accounts migrated per scan",
              DYNAMIC_ACCOUNTS,
              null),
          warned(
              "dynamicAccounts.scanFrequencySeconds",
              "interval between scans for accounts to migrate",
              DYNAMIC_ACCOUNTS,
              null),
          warned(
              "dynamicAccounts.namePatterns",
              "names of Clouddriver accounts to migrate",
              DYNAMIC_ACCOUNTS,
              "[]"),
          warned(
              "dynamicAccounts.credentialScanNamePatterns",
              "names of accounts in credential sources to migrate",
              DYNAMIC_ACCOUNTS,
              "[]"),
          warned(
              "dynamicAccountsEnabled",
              "whether the agent accepts dynamic accounts (true)",
              DYNAMIC_ACCOUNTS + "; restrict who may call that API instead",
              "true"),
          // kubernetes.*
          same(
              "kubernetes.noProxy",
              "ignore HTTP_PROXY, HTTPS_PROXY and NO_PROXY for every cluster",
              "the same, for the file's accounts and those Clouddriver adds"),
          warned(
              "kubernetes.reconnectTimeoutMs",
              "wait before reconnecting (5000)",
              "a cluster that failed is retried after 1 second, doubling up to 60 seconds; the"
                  + " connection to Clouddriver follows clouddriver.backoff",
              null),
          same(
              "kubernetes.cacheGroupSize",
              "accounts per group when starting watchers (0: all at once)",
              "the same"),
          same("kubernetes.cacheGroupDelayMs", "wait between those groups", "the same"),
          warned(
              "kubernetes.retries.enabled",
              "retries of failed Kubernetes API requests",
              RETRIES,
              null),
          warned("kubernetes.retries.maxRetries", "how often a request is retried", RETRIES, null),
          warned("kubernetes.retries.backOffMs", "wait between retries", RETRIES, null),
          warned(
              "kubernetes.retries.retryAnyError",
              "retry on any error rather than listed ones",
              RETRIES,
              null),
          warned("kubernetes.retries.retryableErrors", "errors that are retried", RETRIES, null),
          warned(
              "kubernetes.serverSideApply.enabled",
              "when the agent deploys with server-side apply",
              SERVER_SIDE_APPLY,
              "allowed"),
          warned(
              "kubernetes.serverSideApply.clearManagedFields",
              "clear managed fields so the agent is their only manager",
              SERVER_SIDE_APPLY,
              "allowed"),
          warned(
              "kubernetes.serverSideApply.manifestDefaults",
              "add field defaults to deployed manifests",
              SERVER_SIDE_APPLY,
              "allowed"),
          warned(
              "kubernetes.serverSideApply.kinds[].kind",
              "a kind with its own server-side apply settings",
              SERVER_SIDE_APPLY,
              null),
          warned(
              "kubernetes.serverSideApply.kinds[].enabled",
              "server-side apply for that kind",
              SERVER_SIDE_APPLY,
              null),
          warned(
              "kubernetes.serverSideApply.kinds[].clearManagedFields",
              "clear managed fields for that kind",
              SERVER_SIDE_APPLY,
              null),
          warned(
              "kubernetes.serverSideApply.kinds[].manifestDefaults",
              "add field defaults for that kind",
              SERVER_SIDE_APPLY,
              null),
          // kubernetes.accounts[]
          same("kubernetes.accounts[].name", "the account's name", "the same"),
          converted(
              "kubernetes.accounts[].kubeConfigFile",
              "kubernetes.accounts[].kubeconfigFile",
              "the kubeconfig (the reference table's spelling)",
              "read as written; the converter writes kubeconfigFile"),
          same(
              "kubernetes.accounts[].kubeconfigFile",
              "the kubeconfig (the spelling of every example)",
              "the same; encryptedFile:file!f:<path> as well"),
          same(
              "kubernetes.accounts[].kubeconfigContents",
              "the kubeconfig itself (dynamic accounts)",
              "the same, in the file too (with encrypted:env or encrypted:file references)"),
          same("kubernetes.accounts[].serviceAccount", "use the pod's service account", "the same"),
          same("kubernetes.accounts[].context", "the kubeconfig context", "the same"),
          same(
              "kubernetes.accounts[].insecure",
              "do not verify the API server's certificate",
              "the same"),
          warned(
              "kubernetes.accounts[].oAuthScopes",
              "OAuth scopes for the kubeconfig's gcp auth provider",
              "the agent authenticates as the kubeconfig says: for GKE use its exec plugin"
                  + " (gke-gcloud-auth-plugin) or a token, with any scopes set there",
              "[]"),
          same("kubernetes.accounts[].namespaces", "namespaces to watch", "the same"),
          same(
              "kubernetes.accounts[].omitNamespaces",
              "namespaces not to watch (documented as not implemented)",
              "implemented: these namespaces are not watched"),
          same(
              "kubernetes.accounts[].onlyNamespacedResources",
              "leave cluster-scoped kinds alone",
              "the same"),
          same(
              "kubernetes.accounts[].kinds",
              "kinds to cache, singular and without group (deployment, replicaSet)",
              "the same: kind names compare ignoring case, and Kind.group names a group"),
          same("kubernetes.accounts[].omitKinds", "kinds not to cache", "the same"),
          converted(
              "kubernetes.accounts[].customResourceDefinitions[].kind",
              "kubernetes.accounts[].customResources",
              "custom resources to watch, as Kind.group",
              "read as customResources[].kubernetesKind, Clouddriver's form, which the converter"
                  + " writes: watched (added to kinds when kinds is set; without kinds every custom"
                  + " resource is watched) and written into the account's Clouddriver definition"),
          converted(
              "kubernetes.accounts[].customResourceDefinitions[].scope",
              "kubernetes.accounts[].customResources",
              "Cluster or Namespaced",
              "read as customResources[].namespaced (Namespaced: true, Cluster: false), which the"
                  + " converter writes; what the agent watches in which namespace comes from the"
                  + " API server's discovery"),
          same(
              "kubernetes.accounts[].metrics",
              "send pod metrics to Clouddriver every 20 seconds",
              "written into the account's Clouddriver definition as metrics. The agent pushes"
                  + " none: with true (or left out, Clouddriver's default) Clouddriver reads pod"
                  + " metrics itself, running kubectl top pod through the plugin's tunnel to this"
                  + " agent, for which the cluster needs a metrics server (metrics.k8s.io); false"
                  + " stops it"),
          converted(
              "kubernetes.accounts[].permissions",
              "kubernetes.accounts[].permissions",
              "READ and WRITE roles as a list of single-key maps, - READ: [a, b]",
              "read as written, like the map form {READ: [a, b], WRITE: [c]} that the converter"
                  + " writes; a malformed list is an error, never an unrestricted account"),
          same(
              "kubernetes.accounts[].maxResumableResourceAgeMs",
              "resume watches from stored resource versions younger than this (300000)",
              "the same: after a restart too, from what Clouddriver committed (a plugin speaking"
                  + " protocol version 2 keeps it)"),
          same(
              "kubernetes.accounts[].onlySpinnakerManaged",
              "cache only Spinnaker's objects (documented as not implemented in the agent)",
              "implemented: only objects labelled app.kubernetes.io/managed-by: spinnaker are"
                  + " sent"),
          same(
              "kubernetes.accounts[].noProxy",
              "ignore HTTP_PROXY, HTTPS_PROXY and NO_PROXY for this cluster",
              "the same"),
          warned(
              "kubernetes.accounts[].serviceAccountName",
              "a service account name in Armory's account templates",
              "the agent uses the service account its pod runs as: set serviceAccountName on its"
                  + " Deployment",
              null),
          warned(
              "kubernetes.accounts[].skipManifestDefaults",
              "do not add field defaults (replaced by kubernetes.serverSideApply)",
              SERVER_SIDE_APPLY,
              "false"),
          warned(
              "kubernetes.accounts[].skipServerSideApply",
              "never use server-side apply (replaced by kubernetes.serverSideApply)",
              SERVER_SIDE_APPLY,
              "false"),
          clouddriverAccount("environment", "the account's environment", NOT_USED),
          clouddriverAccount("accountType", "the account's type", NOT_USED),
          clouddriverAccount(
              "requiredGroupMembership",
              "roles that may use the account (Spinnaker's older form)",
              "use permissions, which the agent sends to Clouddriver"),
          clouddriverAccount("kubectlExecutable", "the kubectl to run", KUBECTL),
          clouddriverAccount("kubectlPath", "the kubectl to run", KUBECTL),
          clouddriverAccount("kubectlRequestTimeoutSeconds", "kubectl's timeout", KUBECTL),
          clouddriverAccount("cacheThreads", "caching threads", CACHING),
          clouddriverAccount("cacheIntervalSeconds", "the caching interval", CACHING),
          clouddriverAccount("cachingPolicies", "caching policies", CACHING),
          clouddriverAccount(
              "cacheAllApplicationRelationships", "caching of relationships", CACHING),
          same(
              "kubernetes.accounts[].customResources",
              "Clouddriver's settings for custom resources (kubernetesKind, spinnakerKind,"
                  + " deployPriority, versioned, namespaced), a Clouddriver account setting that"
                  + " Armory's agent ignored",
              "watched (added to kinds when kinds is set) and written into the account's"
                  + " Clouddriver definition, as Clouddriver's own account would have them"),
          clouddriverAccount("namingStrategy", "Clouddriver's naming strategy", NOT_USED),
          clouddriverAccount(
              "checkPermissionsOnStartup", "Clouddriver's permission check", NOT_USED),
          clouddriverAccount(
              "rawResourcesEndpointConfig", "Clouddriver's raw resources endpoint", NOT_USED),
          clouddriverAccount("providerVersion", "Halyard's provider version", NOT_USED),
          clouddriverAccount("dockerRegistries", "Halyard's Docker registries", NOT_USED),
          clouddriverAccount("configureImagePullSecrets", "Halyard's image pull secrets", NOT_USED),
          clouddriverAccount("liveManifestCalls", "Clouddriver's live manifest calls", NOT_USED),
          clouddriverAccount("oAuthServiceAccount", "a GCP service account for kubectl", KUBECTL),
          // logging.*
          warned("logging.file", "write logs to this file", LOG_FILE, null),
          same("logging.format", "text or json", "the same"),
          converted(
              "logging.level",
              "logging.level",
              "panic, fatal, error, warn or warning, info, debug or trace",
              "warning is read as warn; panic and fatal as error, SpinAgent's most severe level"
                  + " (with a warning); the converter writes SpinAgent's names"),
          warned(
              "logging.multiWrite",
              "write logs to the file and to standard output",
              LOG_FILE,
              "false"),
          warned("logging.maxSizeMb", "size of each log file", LOG_FILE, null),
          warned("logging.maxAgeDays", "days log files are kept", LOG_FILE, null),
          warned("logging.maxBackups", "log files kept", LOG_FILE, null),
          warned(
              "logging.localTime",
              "local time instead of UTC in log file names",
              "log lines carry the local time with its offset from UTC",
              "true"),
          warned("logging.compress", "compress old log files", LOG_FILE, "false"),
          warned(
              "logging.fields",
              "fields added to every log line",
              "log lines name the agent, the account and the cause in the message, and carry the"
                  + " logger and thread in JSON",
              null),
          // pprof, prometheus, server
          warned(
              "pprof.enabled",
              "Go's pprof profiling endpoint",
              "a JVM has no pprof: use jcmd, Java Flight Recorder or a JMX profiler",
              "false"),
          warned(
              "pprof.port",
              "the pprof port",
              "a JVM has no pprof: use jcmd, Java Flight Recorder or a JMX profiler",
              null),
          same("prometheus.enabled", "serve Prometheus metrics", "the same"),
          same(
              "prometheus.port",
              "their port, answering /metrics and /prometheus_metrics",
              "the same; both paths are also always served on server.port"),
          warned(
              "server.host",
              "the health server's host name",
              "the admin server listens on every interface at server.port",
              null),
          same("server.port", "the health endpoint's port (8082)", "the same"),
          warned(
              "server.ssl.enabled",
              "TLS for the health endpoint",
              "the admin endpoint is plain HTTP; put a TLS-terminating proxy in front of it if it"
                  + " must be reached over TLS",
              "false"),
          warned(
              "server.ssl.certFile", "its certificate", "the admin endpoint is plain HTTP", null),
          warned("server.ssl.keyFile", "its key", "the admin endpoint is plain HTTP", null),
          warned(
              "server.ssl.keyPassword",
              "the key's password",
              "the admin endpoint is plain HTTP",
              null),
          warned(
              "server.ssl.keyFilePassword",
              "the key's password",
              "the admin endpoint is plain HTTP",
              null),
          warned(
              "server.ssl.caCertFile",
              "CA for client certificates",
              "the admin endpoint is plain HTTP",
              null),
          warned(
              "server.ssl.clientAuth",
              "client certificates for the health endpoint",
              "the admin endpoint is plain HTTP",
              null),
          warned(
              "secrets.vault",
              "Vault settings for encrypted:vault!... references",
              "the agent has no Vault client: such references are refused, saying how to hand the"
                  + " secret over as a file or an environment variable",
              null),
          // tasks, timeoutSeconds
          same(
              "tasks.totalBudget",
              "concurrent cluster tasks (1000); 0: no limit",
              "the same, 0 included"),
          same(
              "tasks.budgetPerAccount",
              "concurrent tasks per account (50); 0: no limit",
              "the same, 0 included"),
          warned(
              "tasks.queueCheckFrequencyMs",
              "how often waiting tasks are checked",
              "a waiting task starts as soon as another ends; there is nothing to poll",
              null),
          same(
              "timeoutSeconds",
              "timeout of a Kubernetes API request; 0 (the default): none",
              "the same, 0 included; the default is 30"),
          warned(
              "hub",
              "the connection to Armory's hosted services (removed by Armory in 2021)",
              "SpinAgent connects to Clouddriver only (clouddriver.*)",
              null));

  private static final Map<String, ArmoryKey> BY_KEY = index(ROWS);
  private static final Map<String, Set<String>> CHILDREN = children(ROWS);

  private ArmoryAgentKeys() {}

  public static List<ArmoryKey> rows() {
    return ROWS;
  }

  /** The row of a key path written as in the table ({@code []} for list items). */
  public static Optional<ArmoryKey> row(String pattern) {
    return Optional.ofNullable(BY_KEY.get(pattern));
  }

  /**
   * The keys the table has directly under {@code pattern}, a map or a list of maps ("" for the top
   * level).
   */
  public static Set<String> childKeys(String pattern) {
    if (pattern.isEmpty()) {
      return CHILDREN.getOrDefault("", Set.of());
    }
    Set<String> children = new LinkedHashSet<>(CHILDREN.getOrDefault(pattern, Set.of()));
    children.addAll(CHILDREN.getOrDefault(pattern + "[]", Set.of()));
    return children;
  }

  /**
   * Each map of the table ({@code ""}, {@code kubernetes}, {@code kubernetes.accounts[]}, ...) to
   * the keys directly under it, in table order: looked up for every unknown key, of which a file
   * may have many.
   */
  private static Map<String, Set<String>> children(List<ArmoryKey> rows) {
    Map<String, Set<String>> children = new LinkedHashMap<>();
    for (ArmoryKey row : rows) {
      String key = row.key();
      int start = 0;
      while (start < key.length()) {
        int end = start;
        while (end < key.length() && key.charAt(end) != '.' && key.charAt(end) != '[') {
          end++;
        }
        String parent = start == 0 ? "" : key.substring(0, start - 1);
        children.computeIfAbsent(parent, p -> new LinkedHashSet<>()).add(key.substring(start, end));
        if (key.startsWith("[]", end) && !key.startsWith("[].", end)) {
          break; // A list of values, not of maps: no keys under it.
        }
        // Past "[]" and the "." after it, or past the ".".
        start = key.startsWith("[].", end) ? end + 3 : end + 1;
      }
    }
    return children;
  }

  /**
   * {@code kubernetes.accounts[3].name} as the table writes it: {@code kubernetes.accounts[].name}.
   */
  public static String pattern(String keyPath) {
    return keyPath.replaceAll("\\[\\d+]", "[]");
  }

  private static Map<String, ArmoryKey> index(List<ArmoryKey> rows) {
    Map<String, ArmoryKey> index = new LinkedHashMap<>();
    List<String> duplicates = new ArrayList<>();
    for (ArmoryKey row : rows) {
      if (index.put(row.key(), row) != null) {
        duplicates.add(row.key());
      }
    }
    if (!duplicates.isEmpty()) {
      throw new IllegalStateException("rows given twice: " + duplicates);
    }
    return index;
  }

  private static ArmoryKey same(String key, String armory, String spinAgent) {
    return new ArmoryKey(key, Treatment.SAME, key, armory, spinAgent, null);
  }

  private static ArmoryKey converted(
      String key, String spinAgentKey, String armory, String spinAgent) {
    return new ArmoryKey(key, Treatment.CONVERTED, spinAgentKey, armory, spinAgent, null);
  }

  private static ArmoryKey warned(String key, String armory, String spinAgent, String harmless) {
    return new ArmoryKey(key, Treatment.WARNED, null, armory, spinAgent, harmless);
  }

  /** A key of Clouddriver's own Kubernetes accounts, carried over with an account's definition. */
  private static ArmoryKey clouddriverAccount(String key, String what, String spinAgent) {
    return warned(
        "kubernetes.accounts[]." + key,
        what + ", a Clouddriver account setting that Armory's agent ignored",
        spinAgent,
        null);
  }
}
