package io.spinagent.agent

import static io.spinagent.agent.Eventually.eventually

import groovy.json.JsonSlurper
import io.spinagent.agent.cluster.AccountState
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
import java.nio.file.StandardCopyOption
import java.time.Duration
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The whole agent runtime: admin endpoint, account lifecycle and configuration reload, streaming to
 * a test Clouddriver that caches every account from this agent.
 */
class AgentRuntimeSpec extends Specification {

  static final ClusterOptions FAST = ClusterOptions.DEFAULTS.withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))

  @TempDir Path dir
  List<AutoCloseable> closeables = []
  HttpClient http = HttpClient.newHttpClient()
  ChannelServer channel = new ChannelServer()

  def cleanup() {
    closeables.reverse().each { it.close() }
    channel.close()
  }

  KubernetesApiServer server() {
    def server = KubernetesApiServer.builder().start()
    closeables << server
    server.createObject('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1","namespace":"default"},' +
        '"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}')
    server.createObject('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"default"},"spec":{"containers":[{"name":"c","image":"i"}]}}')
    server
  }

  Path kubeconfig(KubernetesApiServer server) {
    server.kubeconfig().writeTo(dir.resolve("kubeconfig-${UUID.randomUUID()}.yaml"))
  }

  static int freePort() {
    new ServerSocket(0).withCloseable { it.localPort }
  }

  /** A configuration with the given accounts (name to [kubeconfig, kinds]). */
  String yaml(Map<String, List> accounts) {
    def lines = ["clouddriver: {grpc: '${channel.target()}', insecure: true, backoff: {baseDelay: 100ms, maxDelay: 500ms}}",
                 'kubernetes:', '  accounts:']
    accounts.each { name, spec ->
      lines << "    - name: $name"
      lines << "      kubeconfigFile: ${spec[0]}"
      lines << "      kinds: [${spec[1].join(', ')}]"
    }
    lines.join('\n') + '\n'
  }

  AgentRuntime start(Path file) {
    def loader = new ConfigLoader({ 'test-agent' })
    def loaded = loader.load(file)
    assert loaded instanceof ConfigLoadResult.Loaded: loaded
    def runtime = AgentRuntime.start(file, loaded.config(), loader, FAST, 0)
    closeables << runtime
    runtime
  }

  Map get(AgentRuntime runtime, String path) {
    def response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${runtime.adminPort()}$path")).build(),
        HttpResponse.BodyHandlers.ofString())
    [status: response.statusCode(), text: response.body(),
     json: path == '/metrics' ? null : new JsonSlurper().parseText(response.body())]
  }

  static void write(Path file, String text) {
    // Replace, as editors and kubectl do, so no reader sees half a file.
    def tmp = file.resolveSibling(file.fileName.toString() + '.tmp')
    Files.writeString(tmp, text)
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
  }

  def "/health, /accounts and /metrics: an unreachable cluster is reported while the other account syncs"() {
    given:
    def up = server()
    def down = KubernetesApiServer.builder().build().start()
    def downKubeconfig = kubeconfig(down)
    down.close()
    def file = dir.resolve('spinagent.yaml')
    Files.writeString(file, yaml([up: [kubeconfig(up), ['Deployment']], down: [downKubeconfig, ['Deployment']]]))
    def runtime = start(file)

    expect:
    eventually { get(runtime, '/accounts').json.accounts.find { it.name == 'up' }.state == 'READY' }
    eventually { get(runtime, '/accounts').json.accounts.find { it.name == 'down' }.attempts >= 2 }
    def accounts = get(runtime, '/accounts').json.accounts
    def downStatus = accounts.find { it.name == 'down' }
    downStatus.state == 'FAILED'
    downStatus.error.contains('cannot reach the API server')
    accounts.find { it.name == 'up' }.watchedKinds == ['Deployment.apps']
    accounts.find { it.name == 'up' }.objects == 1
    accounts.find { it.name == 'up' }.kubernetesVersion == 'v1.29.4'

    and:
    def health = get(runtime, '/health')
    health.status == 503
    health.json.status == 'SYNCING'
    health.json.accounts == [up: 'READY', down: 'FAILED']

    and:
    def metrics = get(runtime, '/metrics')
    metrics.status == 200
    metrics.text =~ /spinagent_accounts\{state="READY",?} 1\.0/
    metrics.text =~ /spinagent_accounts\{state="FAILED",?} 1\.0/
    metrics.text.contains('spinagent_kubernetes_objects 1.0')

    when: "the unreachable account is removed from the file"
    write(file, yaml([up: [kubeconfig(up), ['Deployment']]]))

    then: "every remaining account has synced"
    eventually { get(runtime, '/health').status == 200 }
    get(runtime, '/health').json == [status: 'UP', accounts: [up: 'READY']]
  }

  def "configuration reload: accounts are added, changed and removed while running; a broken edit keeps the last good configuration"() {
    given:
    def api = server()
    def kc = kubeconfig(api)
    def file = dir.resolve('spinagent.yaml')
    Files.writeString(file, yaml([a: [kc, ['Deployment']]]))
    def runtime = start(file)
    assert eventually { runtime.clusters().allSynced() }

    when: "an account is added"
    write(file, yaml([a: [kc, ['Deployment']], b: [kc, ['Pod']]]))

    then:
    eventually { runtime.clusters().status('b').map { it.state() == AccountState.READY }.orElse(false) }
    eventually { channel.objects('b') == ['Pod default/p1'] as Set }

    when: "an account is changed"
    write(file, yaml([a: [kc, ['Pod', 'Deployment']], b: [kc, ['Pod']]]))

    then: "it restarts with its new settings, the other keeps running"
    eventually { runtime.clusters().status('a').get().watchedKinds() as Set == ['Pod', 'Deployment.apps'] as Set }
    eventually { runtime.clusters().allSynced() }

    when: "a broken edit"
    write(file, "kubernetes:\n  accounts:\n    - name: Bad Name\n      kubeconfigFile: $kc\n")

    then: "is reported, and the last good configuration keeps running"
    eventually { get(runtime, '/accounts').json.configError?.contains("'Bad Name' is not a valid account name") }
    runtime.clusters().statuses()*.name() as Set == ['a', 'b'] as Set
    runtime.clusters().allSynced()

    when: "fixed, with an account removed"
    write(file, yaml([b: [kc, ['Pod']]]))

    then:
    eventually { runtime.clusters().statuses()*.name() == ['b'] }
    get(runtime, '/accounts').json.configError == null
  }

  def "creating or editing the -local overlay is a configuration change too"() {
    given:
    def api = server()
    def kc = kubeconfig(api)
    def file = dir.resolve('spinagent.yaml')
    Files.writeString(file, yaml([a: [kc, ['Deployment']]]))
    def runtime = start(file)
    assert eventually { runtime.clusters().allSynced() }

    when: "an overlay appears whose account list replaces the main file's"
    write(dir.resolve('spinagent-local.yaml'), yaml([a: [kc, ['Deployment']], o: [kc, ['Pod']]]).readLines()
        .dropWhile { !it.startsWith('kubernetes:') }.join('\n') + '\n')

    then:
    eventually { runtime.clusters().statuses()*.name() as Set == ['a', 'o'] as Set }
    eventually { runtime.clusters().allSynced() }

    when: "the overlay is removed again"
    Files.delete(dir.resolve('spinagent-local.yaml'))

    then:
    eventually { runtime.clusters().statuses()*.name() == ['a'] }
  }

  def "a ConfigMap volume update (a swap of the ..data symbolic link) is noticed"() {
    given: "the layout kubelet writes: spinagent.yaml -> ..data/spinagent.yaml, ..data -> ..<timestamp>"
    def api = server()
    def kc = kubeconfig(api)
    def volume = Files.createDirectories(dir.resolve('volume'))
    def first = Files.createDirectories(volume.resolve('..2026_01_01_00_00_00.1'))
    Files.writeString(first.resolve('spinagent.yaml'), yaml([a: [kc, ['Deployment']]]))
    Files.createSymbolicLink(volume.resolve('..data'), first.fileName)
    Files.createSymbolicLink(volume.resolve('spinagent.yaml'), Path.of('..data/spinagent.yaml'))
    def runtime = start(volume.resolve('spinagent.yaml'))
    assert eventually { runtime.clusters().allSynced() }

    when: "kubelet writes the new content elsewhere and atomically swaps ..data"
    def second = Files.createDirectories(volume.resolve('..2026_01_01_00_01_00.2'))
    Files.writeString(second.resolve('spinagent.yaml'), yaml([a: [kc, ['Deployment']], c: [kc, ['Pod']]]))
    Files.createSymbolicLink(volume.resolve('..data_tmp'), second.fileName)
    Files.move(volume.resolve('..data_tmp'), volume.resolve('..data'), StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING)

    then:
    eventually { runtime.clusters().statuses()*.name() == ['a', 'c'] }
    eventually { runtime.clusters().allSynced() }
  }
}
