package io.spinagent.plugin.channel

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.config.AccountPermissions
import io.spinagent.agent.config.AgentConfig
import io.spinagent.agent.config.AgentIdentityConfig
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.PrometheusConfig
import io.spinagent.agent.config.ServerConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.cache.InMemoryObjectStore.ObjectKey
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.tunnel.OperationsProperties
import io.spinagent.plugin.tunnel.TunnelHttpServer
import io.spinagent.plugin.tunnel.TunnelProperties
import io.spinagent.plugin.tunnel.TunnelTokens
import io.spinagent.plugin.tunnel.history.InMemoryOperationHistory
import io.spinagent.plugin.tunnel.history.OperationQuery
import io.spinagent.plugin.tunnel.history.OperationRecorder
import io.spinagent.testkit.kubernetes.AccessControl
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir
import spock.lang.Unroll
import spock.util.concurrent.PollingConditions

/**
 * Clouddriver's way of operating a cluster, end to end: the real kubectl with a kubeconfig pointing
 * at the plugin's tunnel, the real plugin, the real agent runtime holding the cluster's
 * credentials, and testkit's API server as the cluster. What kubectl changes shows in the cluster
 * and flows back into the plugin's store through the agent's watch. The cluster knows only the
 * agent's token, and its RBAC refuses deleting Secrets.
 *
 * <p>Every feature runs once with each kubectl minor version Clouddriver ships (1.30 to 1.33; 2026.3
 * and later default to 1.30), the real release of each as the build provisioned it: the data
 * variable {@code release} of each feature's {@code where:} block, which {@link #setup} reads.
 */
@Unroll('#featureName [kubectl #release]')
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
  InMemoryOperationHistory history = new InMemoryOperationHistory(1000)
  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)
  ObjectMapper json = new ObjectMapper()
  Path kubeconfig
  /** The kubectl binary of this iteration. */
  String kubectlBinary

  def setup() {
    def release = specificationContext.currentIteration.dataVariables.release
    assert release instanceof KubectlRelease: 'every feature of this spec runs once per kubectl release: ' +
      'end it with where: release << KubectlRelease.provisioned()'
    kubectlBinary = release.path()
    plugin.start()
    tunnel = TunnelHttpServer.start(new TunnelProperties(port: 0), new OperationsProperties(), tokens,
      plugin.accounts, plugin.sessions, new OperationRecorder(history, 'replica-1'))
    cluster.accessControl().acceptToken('agent-token', 'spinagent-agent',
      { AccessControl.AccessRequest r -> !(r.verb() == 'delete' && r.resource() == 'secrets') } as AccessControl.AccessRule)
    def agentKubeconfig = cluster.kubeconfig().token('agent-token').writeTo(dir.resolve('agent-kubeconfig.yaml'))
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

    where:
    release << KubectlRelease.provisioned()
  }

  def "the cluster's own refusals pass through unchanged, 403 from RBAC included"() {
    when:
    def missing = kubectl(null, 'get', 'deployment', 'nowhere', '-o', 'json')
    def forbidden = kubectl(null, 'delete', 'secret', 'db-password')

    then:
    missing.exit != 0
    missing.err.contains('"nowhere" not found')
    forbidden.exit != 0
    forbidden.err.contains('Error from server (Forbidden): secrets "db-password" is forbidden: ' +
      'User "spinagent-agent" cannot delete resource "secrets"')
    // operations reach the history table through a queue that a background thread writes
    eventually.eventually { assert operations().find { it.verb() == 'delete' }?.status() == 403 }

    where:
    release << KubectlRelease.provisioned()
  }

  def "the cluster sees the agent's credentials, never the tunnel token kubectl sent"() {
    when:
    def got = kubectl(null, 'get', 'namespaces', '-o', 'json')

    then:
    got.exit == 0
    def users = cluster.requestLog().entries().findAll { it.uri().startsWith('/api/v1/namespaces') }*.user() as Set
    users == ['spinagent-agent'] as Set

    where:
    release << KubectlRelease.provisioned()
  }

  def "create and replace from stdin, as Clouddriver runs them, act on the cluster and come back through the stream"() {
    when:
    def created = kubectl(DEPLOYMENT.replace('frontend', 'backend'), 'create', '-o', 'json', '-f', '-')

    then:
    created.exit == 0
    json.readValue(created.out, Map).metadata.uid != null
    cluster.getObject('apps/v1', 'Deployment', 'default', 'backend').isPresent()
    eventually.eventually { assert stored('backend')?.spec?.template?.spec?.containers?.getAt(0)?.image == 'nginx:1.27' }

    when:
    def replaced = kubectl(DEPLOYMENT.replace('frontend', 'backend').replace('nginx:1.27', 'nginx:1.28'),
      'replace', '-o', 'json', '-f', '-')

    then:
    replaced.exit == 0
    json.readValue(replaced.out, Map).spec.template.spec.containers[0].image == 'nginx:1.28'
    cluster.getObject('apps/v1', 'Deployment', 'default', 'backend').get().contains('nginx:1.28')
    eventually.eventually { assert stored('backend').spec.template.spec.containers[0].image == 'nginx:1.28' }
    // the history is written behind the answers, by its own writer
    eventually.eventually { assert operations()*.verb().containsAll(['create', 'update']) }
    operations().every { it.agentId() == 'agent-e2e' && it.replica() == 'replica-1' }

    where:
    release << KubectlRelease.provisioned()
  }

  def "rollout pause, resume, restart, history and undo act on the Deployment and come back through the stream"() {
    given: 'a Deployment at its second revision, with the ReplicaSets its controller would have made'
    assert kubectl(DEPLOYMENT.replace('nginx:1.27', 'nginx:1.28'), 'apply', '-o', 'json', '-f', '-').exit == 0
    def uid = json.readValue(cluster.getObject('apps/v1', 'Deployment', 'default', 'frontend').get(), Map).metadata.uid
    cluster.createObject(replicaSet('frontend-7d4f', 1, 'nginx:1.27', uid))
    cluster.createObject(replicaSet('frontend-5c9b', 2, 'nginx:1.28', uid))

    when:
    def paused = kubectl(null, 'rollout', 'pause', 'deployment/frontend')

    then:
    paused.exit == 0
    live('frontend').spec.paused == true
    eventually.eventually { assert stored('frontend')?.spec?.paused == true }

    when:
    def resumed = kubectl(null, 'rollout', 'resume', 'deployment/frontend')

    then:
    resumed.exit == 0
    !live('frontend').spec.paused
    eventually.eventually { assert !stored('frontend').spec.paused }

    when:
    def restarted = kubectl(null, 'rollout', 'restart', 'deployment/frontend')

    then:
    restarted.exit == 0
    live('frontend').spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'] != null
    eventually.eventually {
      assert stored('frontend').spec.template.metadata.annotations?.get('kubectl.kubernetes.io/restartedAt') != null
    }

    when:
    def history = kubectl(null, 'rollout', 'history', 'deployment/frontend')

    then:
    history.exit == 0
    history.out.readLines()*.trim().findAll { it ==~ /\d+\s+.*/ }*.split(/\s+/)*.getAt(0) == ['1', '2']

    when:
    def undone = kubectl(null, 'rollout', 'undo', 'deployment/frontend', '--to-revision=1')

    then:
    undone.exit == 0
    live('frontend').spec.template.spec.containers[0].image == 'nginx:1.27'
    eventually.eventually { assert stored('frontend').spec.template.spec.containers[0].image == 'nginx:1.27' }

    where:
    release << KubectlRelease.provisioned()
  }

  def "logs prints a container's lines, and logs -f streams them as they come"() {
    given:
    cluster.createObject('''{"apiVersion":"v1","kind":"Pod","metadata":{"name":"frontend-1","namespace":"default"},
      "spec":{"containers":[{"name":"web","image":"nginx:1.27"},{"name":"proxy","image":"envoy"}]}}''')
    cluster.podLogs().append('default', 'frontend-1', 'web', 'started', 'GET / 200')

    when:
    def logs = kubectl(null, 'logs', 'frontend-1', '-c', 'web')

    then:
    logs.exit == 0
    logs.out == 'started\nGET / 200\n'
    // operations reach the history table through a queue that a background thread writes
    eventually.eventually {
      assert operations().find { it.verb() == 'get' && it.path().contains('/log?') }?.path()?.startsWith('/api/v1/namespaces/default/pods/frontend-1/log?container=web')
    }

    when: 'following'
    def process = new ProcessBuilder([kubectlBinary, "--kubeconfig=$kubeconfig".toString(), "--cache-dir=${kubectlCache()}".toString(),
      'logs', '-f', 'frontend-1', '-c', 'web'])
      .redirectErrorStream(true).start()
    process.outputStream.close()
    def output = new StringBuffer()
    def reader = process.consumeProcessOutputStream(output)
    eventually.eventually { assert output.toString() == 'started\nGET / 200\n' }
    cluster.podLogs().append('default', 'frontend-1', 'web', 'GET /health 200')

    then:
    eventually.eventually { assert output.toString() == 'started\nGET / 200\nGET /health 200\n' }

    when: 'the pod goes away'
    cluster.deleteObject('v1', 'Pod', 'default', 'frontend-1')

    then: 'the stream ends and kubectl with it'
    process.waitFor(30, TimeUnit.SECONDS)
    process.exitValue() == 0

    cleanup:
    process?.destroy()
    reader?.join(5000)

    where:
    release << KubectlRelease.provisioned()
  }

  def "a 10 MB ConfigMap applies through the tunnel in chunks"() {
    given:
    def value = 'x' * (10 * 1024 * 1024)
    def manifest = json.writeValueAsString([apiVersion: 'v1', kind: 'ConfigMap',
      metadata: [name: 'big', namespace: 'default'], data: [payload: value]])

    when:
    def applied = kubectl(manifest, 'apply', '-o', 'json', '-f', '-')

    then:
    applied.exit == 0
    json.readValue(cluster.getObject('v1', 'ConfigMap', 'default', 'big').get(), Map).data.payload.length() == value.length()

    where:
    release << KubectlRelease.provisioned()
  }

  private List operations() {
    history.find(new OperationQuery('prod', null, null, 0, 1000)).operations()
  }

  private Map live(String name) {
    json.readValue(cluster.getObject('apps/v1', 'Deployment', 'default', name).get(), Map)
  }

  private static String replicaSet(String name, int revision, String image, String deploymentUid) {
    new ObjectMapper().writeValueAsString([apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: [name: name, namespace: 'default', labels: [app: 'shop', 'pod-template-hash': name.split('-')[1]],
                 annotations: ['deployment.kubernetes.io/revision': revision.toString()],
                 ownerReferences: [[apiVersion: 'apps/v1', kind: 'Deployment', name: 'frontend', uid: deploymentUid,
                                    controller: true, blockOwnerDeletion: true]]],
      spec: [replicas: 0, selector: [matchLabels: [app: 'shop', 'pod-template-hash': name.split('-')[1]]],
             template: [metadata: [labels: [app: 'shop', 'pod-template-hash': name.split('-')[1]]],
                        spec: [containers: [[name: 'web', image: image]]]]]])
  }

  private Map stored(String name) {
    def object = plugin.store.find('prod', new ObjectKey('apps', 'Deployment', 'default', name))
    object.isPresent() ? json.readValue(object.get().json(), Map) : null
  }

  private Map kubectl(String stdin, String... args) {
    Kubectl.run(kubectlBinary, kubeconfig, stdin, (["--cache-dir=${kubectlCache()}".toString()] + args.toList()) as String[])
  }

  /** kubectl's discovery cache, kept out of the user's home directory. */
  private Path kubectlCache() {
    dir.resolve('kubectl-cache')
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
