package io.spinagent.plugin.channel

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.config.AccountPermissions
import io.spinagent.agent.config.AgentConfig
import io.spinagent.agent.config.AgentIdentityConfig
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.ConfigLoader
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.PrometheusConfig
import io.spinagent.agent.config.ServerConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.cache.InMemoryObjectStore.ObjectKey
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.tunnel.OperationsProperties
import io.spinagent.plugin.tunnel.TunnelHttpServer
import io.spinagent.plugin.tunnel.TunnelProperties
import io.spinagent.plugin.tunnel.TunnelTokens
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * Clouddriver's way of operating a cluster, end to end: the real kubectl with a kubeconfig pointing
 * at the plugin's tunnel, the real plugin, the real agent runtime holding the cluster's
 * credentials, and testkit's API server as the cluster. What kubectl changes shows in the cluster
 * and flows back into the plugin's store through the agent's watch.
 */
class KubectlThroughAgentSpec extends Specification {

  static final String DEPLOYMENT = '''\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: frontend
      namespace: default
      labels: {app: shop}
    spec:
      replicas: 1
      selector: {matchLabels: {app: shop}}
      template:
        metadata: {labels: {app: shop}}
        spec:
          containers:
            - {name: web, image: 'nginx:1.27'}
    '''.stripIndent()

  @TempDir
  Path dir

  @AutoCleanup
  KubernetesApiServer cluster = KubernetesApiServer.builder().start()

  @AutoCleanup
  ChannelFixture plugin = new ChannelFixture()

  @AutoCleanup
  TunnelHttpServer tunnel

  @AutoCleanup
  AgentRuntime agent

  TunnelTokens tokens = new TunnelTokens()
  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)
  ObjectMapper json = new ObjectMapper()
  Path kubeconfig

  def setup() {
    plugin.start()
    tunnel = TunnelHttpServer.start(new TunnelProperties(port: 0), new OperationsProperties(), tokens,
      plugin.accounts, plugin.sessions)
    def agentKubeconfig = cluster.kubeconfig().writeTo(dir.resolve('agent-kubeconfig.yaml'))
    // Built in code rather than read from YAML: this module's test class path has Clouddriver's
    // older SnakeYAML, which the agent's loader does not run on (the agent jar brings its own).
    def account = new KubernetesAccountConfig('prod', Optional.of(agentKubeconfig), false, Optional.empty(),
      [], [], ['Deployment'], [], false, false, AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
    def config = new AgentConfig(new AgentIdentityConfig('agent-e2e', Optional.empty()),
      RealAgentFixture.agentConfig(plugin.channel.port(), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty())),
      new KubernetesConfig([account]), new ServerConfig(freePort()), new PrometheusConfig(false, 8008),
      LoggingConfig.DEFAULT, new TasksConfig(1000, 50), 30)
    def configFile = Files.writeString(dir.resolve('spinagent.yaml'), 'written by the spec; the runtime only watches it\n')
    agent = AgentRuntime.start(configFile, config, new ConfigLoader({ 'agent-e2e' }))
    kubeconfig = dir.resolve('clouddriver-kubeconfig.yaml')
    Files.writeString(kubeconfig, """\
      apiVersion: v1
      kind: Config
      clusters: [{name: prod, cluster: {server: '${tunnel.clusterUrl('prod')}', certificate-authority-data: '${tunnel.caCertificatePem().bytes.encodeBase64()}'}}]
      users: [{name: clouddriver, user: {token: '${tokens.issue('prod')}'}}]
      contexts: [{name: prod, context: {cluster: prod, user: clouddriver, namespace: default}}]
      current-context: prod
      """.stripIndent())
    eventually.eventually { assert plugin.accounts.find('prod').map { it.state() }.orElse(null) == AccountState.ACTIVE }
  }

  def "apply, get, scale, patch and delete through the tunnel act on the cluster and come back through the stream"() {
    when: 'Clouddriver deploys'
    def applied = kubectl(DEPLOYMENT, 'apply', '-o', 'json', '-f', '-')

    then:
    applied.exit == 0
    json.readValue(applied.out, Map).metadata.name == 'frontend'
    cluster.getObject('apps/v1', 'Deployment', 'default', 'frontend').isPresent()
    eventually.eventually { assert stored('frontend')?.spec?.replicas == 1 }

    when: 'it reads live state'
    def got = kubectl(null, 'get', 'deployment', 'frontend', '-o', 'json')

    then:
    got.exit == 0
    json.readValue(got.out, Map).spec.template.spec.containers[0].image == 'nginx:1.27'

    when: 'it scales and patches'
    def scaled = kubectl(null, 'scale', 'deployment', 'frontend', '--replicas=3')
    def patched = kubectl(null, 'patch', 'deployment', 'frontend', '--type', 'merge', '-p',
      '{"metadata":{"annotations":{"moniker.spinnaker.io/application":"shop"}}}')

    then:
    scaled.exit == 0
    patched.exit == 0
    eventually.eventually {
      def object = stored('frontend')
      assert object?.spec?.replicas == 3
      assert object.metadata.annotations['moniker.spinnaker.io/application'] == 'shop'
    }

    when: 'it deletes'
    def deleted = kubectl(null, 'delete', 'deployment', 'frontend')

    then:
    deleted.exit == 0
    !cluster.getObject('apps/v1', 'Deployment', 'default', 'frontend').isPresent()
    eventually.eventually { assert stored('frontend') == null }
  }

  def "the cluster's own refusals pass through unchanged"() {
    when:
    def missing = kubectl(null, 'get', 'deployment', 'nowhere', '-o', 'json')

    then:
    missing.exit != 0
    missing.err.contains('"nowhere" not found')
  }

  private Map stored(String name) {
    def object = plugin.store.find('prod', new ObjectKey('apps', 'Deployment', 'default', name))
    object.isPresent() ? json.readValue(object.get().json(), Map) : null
  }

  private Map kubectl(String stdin, String... args) {
    def command = ['kubectl', "--kubeconfig=$kubeconfig".toString(), '--request-timeout=20s'] + args.toList()
    def process = new ProcessBuilder(command).redirectErrorStream(false).start()
    if (stdin != null) {
      process.outputStream.withWriter { it << stdin }
    } else {
      process.outputStream.close()
    }
    def out = new StringBuffer()
    def err = new StringBuffer()
    // Join the readers, not waitForProcessOutput(): that closes the streams under readers still
    // draining them, and output goes missing.
    def readers = [process.consumeProcessOutputStream(out), process.consumeProcessErrorStream(err)]
    assert process.waitFor(60, TimeUnit.SECONDS): "kubectl ${args.join(' ')} did not finish"
    readers*.join()
    [exit: process.exitValue(), out: out.toString(), err: err.toString()]
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
