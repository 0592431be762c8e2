package io.spinagent.agent

import io.spinagent.agent.cluster.ClusterOptions
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.agent.stream.ChannelServer
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Base for specs of the whole agent ({@link AgentRuntime}) streaming testkit's Kubernetes API
 * servers to a test Clouddriver ({@link ChannelServer}, real gRPC). Everything made here is closed
 * after each feature, runtimes before the servers they talk to.
 */
abstract class AgentSpecification extends Specification {

  static final ClusterOptions FAST = ClusterOptions.DEFAULTS
      .withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))
      .withProgressInterval(Duration.ofMillis(200))

  @TempDir Path dir
  List<AutoCloseable> closeables = []
  List<AgentRuntime> runtimes = []
  ChannelServer channel = new ChannelServer()
  HttpClient http = HttpClient.newHttpClient()

  def cleanup() {
    runtimes.reverse().each { it.close() }
    closeables.reverse().each { it.close() }
    channel.close()
  }

  KubernetesApiServer cluster(KubernetesApiServer.Builder builder = KubernetesApiServer.builder()) {
    def server = builder.start()
    closeables << server
    server
  }

  Path kubeconfig(KubernetesApiServer server) {
    server.kubeconfig().writeTo(dir.resolve("kubeconfig-${UUID.randomUUID()}.yaml"))
  }

  /**
   * A configuration streaming to {@link #channel}; {@code accounts} maps each name to a map of its
   * keys (kubeconfigFile, kinds, namespaces, maxResumableResourceAgeMs, ...).
   */
  String yaml(Map<String, Map> accounts, String kubernetesExtra = '') {
    def lines = ["clouddriver: {grpc: '${channel.target()}', insecure: true, backoff: {baseDelay: 100ms, maxDelay: 500ms}}",
                 'agent: {id: test-agent}', 'kubernetes:']
    if (kubernetesExtra) {
      lines << "  $kubernetesExtra"
    }
    lines << '  accounts:'
    accounts.each { name, keys ->
      lines << "    - name: $name"
      keys.each { key, value ->
        lines << "      $key: ${value instanceof List ? '[' + value.join(', ') + ']' : value}"
      }
    }
    lines.join('\n') + '\n'
  }

  /** Starts an agent on a configuration file holding {@code yaml}. */
  AgentRuntime start(String yaml, ClusterOptions options = FAST) {
    def file = dir.resolve("spinagent-${UUID.randomUUID()}.yaml")
    Files.writeString(file, yaml)
    def loader = new ConfigLoader({ 'test-agent' })
    def loaded = loader.load(file)
    assert loaded instanceof ConfigLoadResult.Loaded: loaded
    def runtime = AgentRuntime.start(file, loaded.config(), loader, options, 0)
    runtimes << runtime
    runtime
  }

  /** Stops an agent as SIGTERM does. */
  void stop(AgentRuntime runtime) {
    runtime.close()
    runtimes.remove(runtime)
  }

  String metrics(AgentRuntime runtime) {
    http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${runtime.adminPort()}/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body()
  }

  static String deployment(String name, String namespace = 'default', int replicas = 1) {
    """{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"$name","namespace":"$namespace"},
      "spec":{"replicas":$replicas,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"i"}]}}}}"""
  }

  static String configMap(String name, String namespace = 'default') {
    """{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name","namespace":"$namespace"},"data":{"k":"v"}}"""
  }

  /** Inherited by the specs: see {@link Eventually}. */
  static boolean eventually(Closure<?> condition) {
    Eventually.eventually(condition)
  }
}
