package io.spinagent.deploy

import groovy.json.JsonSlurper
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.cluster.ClusterOptions
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.time.Duration
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The infrastructure overlay run by the real agent, with its ConfigMap and Secrets laid out on disk
 * as kubelet mounts them (under a temporary root instead of /): the paths the Deployment's probes
 * and the metrics Service use answer as docs/deploy.md says. Readiness fails while one cluster is
 * unreachable, liveness does not (a restart would not help), metrics are served throughout.
 */
class ProbesSpec extends Specification {

  @Shared Kubectl kubectl = Kubectl.inTempHome()
  @Shared Manifests infrastructure = Renderings.kustomize(kubectl, 'infrastructure-mode')
  @TempDir Path root
  List<AutoCloseable> closeables = []
  HttpClient http = HttpClient.newHttpClient()

  def cleanup() {
    closeables.reverse().each { it.close() }
  }

  def cleanupSpec() {
    kubectl.deleteHome()
  }

  def "readiness waits for every cluster, liveness and metrics answer while one is unreachable"() {
    given: 'staging is a live cluster, production one whose API server is gone'
    def staging = KubernetesApiServer.builder().start()
    closeables << staging
    staging.createObject('{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default"},' +
        '"spec":{"ports":[{"port":80}]}}')
    def production = KubernetesApiServer.builder().build().start()
    def productionKubeconfig = production.kubeconfig().toYaml()
    production.close()

    and: 'the Secret spinagent-kubeconfigs and the ConfigMap mounted where the Deployment mounts them'
    def mounts = infrastructure.agentContainer().volumeMounts.collectEntries { [it.name, mounted(it.mountPath)] }
    Files.createDirectories(mounts.kubeconfigs)
    Files.writeString(mounts.kubeconfigs.resolve('staging.yaml'), staging.kubeconfig().toYaml())
    Files.writeString(mounts.kubeconfigs.resolve('production.yaml'), productionKubeconfig)
    Files.createDirectories(mounts.'clouddriver-token')
    Files.writeString(mounts.'clouddriver-token'.resolve('token'), 'agent-token')
    Files.createDirectories(mounts.config)
    def configFile = mounts.config.resolve('spinagent.yaml')
    // A stand-in for Clouddriver, which accepts the accounts: an agent watches them only then.
    def clouddriver = new ClouddriverStandIn()
    closeables << clouddriver
    Files.writeString(configFile, mountedUnderRoot(infrastructure.agentConfig())
        .replace('grpc: spin-clouddriver-grpc.spinnaker:9091', "grpc: ${clouddriver.target()}\n  insecure: true"))

    when: 'the agent starts on that configuration'
    def runtime = start(configFile)

    then: 'staging syncs, production is retried'
    eventually { get(runtime, '/accounts').json.accounts.find { it.name == 'staging' }.state == 'READY' }
    eventually { get(runtime, '/accounts').json.accounts.find { it.name == 'production' }.attempts >= 2 }

    and: 'the readiness probe fails, the liveness probe and the metrics Service succeed'
    get(runtime, probePath('readinessProbe')).status == 503
    get(runtime, probePath('livenessProbe')).status == 200
    def metrics = get(runtime, infrastructure.one('Service').metadata.annotations['prometheus.io/path'])
    metrics.status == 200
    metrics.text =~ /spinagent_accounts\{state="FAILED",?} 1\.0/

    when: 'the operator removes the unreachable cluster from the ConfigMap'
    def reduced = Files.readString(configFile).replaceAll(/(?s)    - name: production\n.*?(?=\n\S)/, '')
    assert !reduced.contains('production')
    def replacement = configFile.resolveSibling('spinagent.yaml.new')
    Files.writeString(replacement, reduced)
    // Replaced whole, as kubelet's symbolic link swap does: the agent never reads half a file.
    Files.move(replacement, configFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING)

    then: 'the agent reloads it without a restart and becomes ready'
    eventually { get(runtime, probePath('readinessProbe')).status == 200 }
    get(runtime, '/health').json == [status: 'UP', accounts: [staging: 'READY']]
  }

  private Path mounted(String absolutePath) {
    root.resolve(absolutePath.substring(1))
  }

  /** The configuration's absolute paths, moved under the temporary root like the mounts. */
  private String mountedUnderRoot(String config) {
    config.replace(' /opt/spinagent/', " ${root}/opt/spinagent/").replace(' /var/run/secrets/', " ${root}/var/run/secrets/")
  }

  private String probePath(String probe) {
    infrastructure.agentContainer()[probe].httpGet.path
  }

  private AgentRuntime start(Path configFile) {
    def loader = new ConfigLoader({ 'spinagent-probes-spec' })
    def loaded = loader.load(configFile)
    assert loaded instanceof ConfigLoadResult.Loaded: loaded
    // A free admin port instead of the configured 8082, and quick retries of the unreachable cluster.
    def options = ClusterOptions.DEFAULTS.withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))
    def runtime = AgentRuntime.start(configFile, loaded.config(), loader, options, 0)
    closeables << runtime
    runtime
  }

  private Map get(AgentRuntime runtime, String path) {
    def response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${runtime.adminPort()}$path")).build(),
        HttpResponse.BodyHandlers.ofString())
    [status: response.statusCode(), text: response.body(),
     json: response.headers().firstValue('Content-Type').orElse('').contains('json') ? new JsonSlurper().parseText(response.body()) : null]
  }

  /** Polls a condition the agent reaches asynchronously; the limit only bounds a failing run. */
  private static boolean eventually(Closure<Boolean> condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos()
    while (System.nanoTime() < deadline) {
      try {
        if (condition()) {
          return true
        }
      } catch (AssertionError | Exception ignored) {
      }
      Thread.sleep(100)
    }
    condition()
  }
}
