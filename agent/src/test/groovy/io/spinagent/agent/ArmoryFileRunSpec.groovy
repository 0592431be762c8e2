package io.spinagent.agent

import static io.spinagent.agent.Eventually.eventually

import io.spinagent.agent.cluster.ClusterOptions
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.agent.convert.AgentFileConverter
import io.spinagent.agent.stream.ChannelServer
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import spock.lang.Specification
import spock.lang.TempDir

/**
 * An armory-agent.yml in Armory's own forms runs the agent against a real Kubernetes API server
 * (testkit) and a real gRPC channel: read as it is, and converted by convert-armory.
 */
class ArmoryFileRunSpec extends Specification {

  static final ClusterOptions FAST = ClusterOptions.DEFAULTS.withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))

  @TempDir Path dir
  ChannelServer channel = new ChannelServer()
  KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  List<AutoCloseable> closeables = []

  def setup() {
    cluster.createObject('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},' +
        '"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},' +
        '"spec":{"containers":[{"name":"c","image":"i"}]}}}}')
  }

  def cleanup() {
    closeables.reverse().each { it.close() }
    channel.close()
    cluster.close()
  }

  /** Armory's forms throughout: spellings, nanoseconds, 0s, the permissions list, keys SpinAgent does not apply. */
  String armoryFile(String insecure) {
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve('kubeconfigs/prod.yaml'))
    """\
    clouddriver:
      grpc: ${channel.target()}
      ${insecure}
      keepAliveTimeOutSeconds: 5
      backoff:
        baseDelay: 100000000
        maxDelay: 500000000
      responseRetries: {enabled: true, maxRetries: 3, backOffMs: 3000}
    kubernetes:
      reconnectTimeoutMs: 5000
      retries: {enabled: true, maxRetries: 3}
      accounts:
        - name: armory-account
          kubeConfigFile: ${dir.relativize(kubeconfig)}
          kinds: [deployment]
          metrics: true
          permissions:
            - READ: [dev]
            - WRITE: [ops]
    logging:
      level: warning
    server:
      port: 8082
    tasks: {totalBudget: 0, budgetPerAccount: 0}
    timeoutSeconds: 0
    """.stripIndent()
  }

  AgentRuntime run(Path file) {
    def loader = new ConfigLoader({ 'armory-agent-0' })
    def loaded = loader.load(file)
    assert loaded instanceof ConfigLoadResult.Loaded: loaded
    def runtime = AgentRuntime.start(file, loaded.config(), loader, FAST, 0)
    closeables << runtime
    runtime
  }

  void streamsTheCluster() {
    assert eventually { channel.objects('armory-account') == ['Deployment default/web'] as Set }
    with(channel.accounts['armory-account']) {
      assert permissions.readList == ['dev']
      assert permissions.writeList == ['ops']
      assert kindsList*.kind == ['Deployment']
      assert hasMetrics() && metrics
    }
  }

  def "read as it is, with warnings for what SpinAgent does not apply"() {
    given:
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, armoryFile('insecure: true'))

    when:
    def loaded = new ConfigLoader({ 'armory-agent-0' }).load(file)

    then:
    loaded.warnings()*.keyPath() == ['clouddriver.responseRetries.enabled', 'clouddriver.responseRetries.maxRetries',
        'clouddriver.responseRetries.backOffMs', 'kubernetes.reconnectTimeoutMs', 'kubernetes.retries.enabled',
        'kubernetes.retries.maxRetries']

    when:
    run(file)

    then:
    streamsTheCluster()
  }

  def "converted: Armory's plaintext default is kept, and the result has nothing left to warn about"() {
    given:
    def armory = dir.resolve('armory-agent.yml')
    Files.writeString(armory, armoryFile(''))
    def converted = dir.resolve('spinagent.yaml')

    when:
    def result = new AgentFileConverter(new ConfigLoader({ 'armory-agent-0' })).convert(armory, converted)
    Files.writeString(converted, result.yaml())
    def loaded = new ConfigLoader({ 'armory-agent-0' }).load(converted)

    then:
    result.isClean()
    loaded.warnings().isEmpty()
    (loaded as ConfigLoadResult.Loaded).config().clouddriver().insecure()

    when:
    run(converted)

    then:
    streamsTheCluster()
  }
}
