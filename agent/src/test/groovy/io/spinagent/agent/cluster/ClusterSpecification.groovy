package io.spinagent.agent.cluster

import groovy.json.JsonSlurper
import io.spinagent.agent.Eventually
import io.spinagent.agent.config.AccountPermissions
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.stream.Outbox
import io.spinagent.agent.stream.OutboxEntry
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import spock.lang.Specification

/**
 * Base for specs that run the agent's cluster side against testkit's Kubernetes API server: servers,
 * kubeconfigs and managers made here are closed after each feature. Stands in for Clouddriver too:
 * each manager's accounts are decided when they are announced (again after being withdrawn), as
 * caching with a complete listing (a version 1 plugin's decision).
 */
abstract class ClusterSpecification extends Specification {

  static final ClusterOptions FAST = ClusterOptions.DEFAULTS
      .withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))

  List<AutoCloseable> closeables = []
  List<Path> tempFiles = []
  Outbox outbox = new Outbox(256L << 20)
  List<List<AccountInfo>> announcements = new CopyOnWriteArrayList<>()

  def cleanup() {
    closeables.reverse().each { it.close() }
    outbox.close()
    tempFiles.each { Files.deleteIfExists(it) }
  }

  KubernetesApiServer server(KubernetesApiServer.Builder builder = KubernetesApiServer.builder()) {
    def server = builder.start()
    closeables << server
    server
  }

  Path kubeconfig(KubernetesApiServer server, String token = null) {
    def file = server.kubeconfig().token(token).writeTempFile()
    tempFiles << file
    file
  }

  static KubernetesAccountConfig account(Map options = [:], String name, Path kubeconfig) {
    new KubernetesAccountConfig(name, Optional.ofNullable(kubeconfig), false,
        Optional.ofNullable(options.context as String),
        (options.namespaces ?: []) as List<String>, (options.omitNamespaces ?: []) as List<String>,
        (options.kinds ?: []) as List<String>, (options.omitKinds ?: []) as List<String>,
        (options.onlyNamespaced ?: false) as boolean, (options.onlySpinnakerManaged ?: false) as boolean,
        AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
  }

  ClusterManager manager(ClusterOptions options = FAST, TasksConfig tasks = new TasksConfig(1000, 50),
                         KubernetesConfig.CacheGroups groups = KubernetesConfig.CacheGroups.NONE) {
    ClusterManager manager
    // Per manager: accounts decided since they were last announced by it.
    Set<String> decided = Collections.synchronizedSet(new HashSet<String>())
    manager = new ClusterManager(outbox, tasks, groups, 10, options, { List<AccountInfo> accounts ->
      announcements << accounts
      decided.retainAll(accounts*.name)
      accounts.each { info ->
        if (decided.add(info.name)) {
          manager.decided(caching(info.name))
        }
      }
    } as ClusterManager.Listener)
    closeables << manager
    manager
  }

  /** What a version 1 plugin decides for an account it accepts. */
  static AccountDecision caching(String account) {
    AccountDecision.newBuilder().setAccount(account).setAccepted(true).setRole(Role.ROLE_CACHING)
        .setResyncRequired(true).build()
  }

  ClusterManager watch(List<KubernetesAccountConfig> accounts, ClusterOptions options = FAST) {
    def manager = manager(options)
    manager.apply(accounts)
    manager
  }

  /** The outbox's entries for an account, in sequence order. */
  List<OutboxEntry> entries(String account) {
    outbox.entriesAfter(account, 0, Integer.MAX_VALUE, Long.MAX_VALUE)
  }

  /**
   * What Clouddriver would hold after applying the outbox: "Kind namespace/name" to the object JSON
   * (as a map) of the latest upsert; deleted objects are absent.
   */
  Map<String, Map> state(String account, String kind = null) {
    Map<String, Map> state = [:]
    entries(account).each { entry ->
      if (entry instanceof OutboxEntry.Change) {
        def change = entry.change()
        if (kind != null && change.kind.kind != kind) {
          return
        }
        def key = "${change.kind.kind} ${change.namespace ? change.namespace + '/' : ''}${change.name}".toString()
        if (change.type == ChangeType.CHANGE_TYPE_UPSERT) {
          state[key] = new JsonSlurper().parse(change.objectJson.toByteArray()) as Map
        } else {
          state.remove(key)
        }
      }
    }
    state
  }

  Set<String> names(String account, String kind) {
    state(account, kind).keySet().collect { it.substring(it.indexOf(' ') + 1) } as Set
  }

  /** Kinds for which a BEGIN and matching END marker are in the outbox. */
  Set<String> resyncedKinds(String account) {
    def begun = [:]
    def ended = [] as Set
    entries(account).each { entry ->
      if (entry instanceof OutboxEntry.Marker) {
        def marker = entry.marker()
        if (marker.phase == ResyncPhase.RESYNC_PHASE_BEGIN) {
          begun[marker.resyncId] = marker.kind.kind
        } else if (begun[marker.resyncId]) {
          ended << begun[marker.resyncId]
        }
      }
    }
    ended
  }

  /** Inherited by the cluster specs: see {@link Eventually}. */
  static boolean eventually(Closure<?> condition) {
    Eventually.eventually(condition)
  }

  static String namespace(String name) {
    """{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"$name"}}"""
  }

  static String deployment(String name, String namespace = 'default', int replicas = 1) {
    """{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"$name","namespace":"$namespace",
        "labels":{"app":"$name"},
        "managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},
      "spec":{"replicas":$replicas,"selector":{"matchLabels":{"app":"$name"}},
        "template":{"metadata":{"labels":{"app":"$name"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}"""
  }

  static String pod(String name, String namespace = 'default') {
    """{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$name","namespace":"$namespace"},
      "spec":{"containers":[{"name":"c","image":"nginx"}]}}"""
  }

  static String configMap(String name, String namespace = 'default') {
    """{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name","namespace":"$namespace"},"data":{"k":"v"}}"""
  }
}
