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
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.tunnel.OperationsProperties
import io.spinagent.plugin.tunnel.TunnelHttpServer
import io.spinagent.plugin.tunnel.TunnelProperties
import io.spinagent.plugin.tunnel.TunnelTokens
import io.spinagent.plugin.tunnel.history.InMemoryOperationHistory
import io.spinagent.plugin.tunnel.history.OperationRecorder
import io.spinagent.testkit.kubernetes.AccessControl
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.time.ZoneOffset
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * What Clouddriver's manifest view does for an account whose definition has {@code metrics: true}:
 * it runs {@code kubectl --namespace=<namespace> top po <name> --containers} with the account's kubeconfig,
 * which for a SpinAgent account points at the plugin's tunnel. Through the real plugin, tunnel and
 * agent runtime, kubectl answers exactly what it answers directly against the cluster (testkit's
 * API server, serving the metrics API as metrics-server does); where the cluster has no metrics
 * server, or refuses the agent the metrics API, kubectl says so the same way. And kubectl get
 * through the tunnel prints the cluster's server-side tables, a real server's columns.
 */
class PodMetricsThroughAgentSpec extends Specification {

  /** KubectlJobExecutor.topPod of Clouddriver 5.90: its namespaced prefix, then top po NAME --containers. */
  static final ObjectMapper JSON = new ObjectMapper()

  static final String[] CLOUDDRIVER_TOP = ['--namespace=shop', 'top', 'po', 'web-1', '--containers']

  @TempDir
  Path dir

  /** The cluster's time stands still: ages are the same for every kubectl run. */
  Clock clock = Clock.fixed(Instant.parse('2025-03-01T12:00:00Z'), ZoneOffset.UTC)

  @AutoCleanup
  KubernetesApiServer cluster

  @AutoCleanup
  ChannelFixture plugin = new ChannelFixture()

  @AutoCleanup
  TunnelHttpServer tunnel

  @AutoCleanup
  AgentRuntime agent

  TunnelTokens tokens = new TunnelTokens()
  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)
  /** kubectl as Clouddriver runs it, through the tunnel. */
  Path throughTunnel
  /** kubectl with the agent's own credentials, straight to the cluster. */
  Path direct

  def "Clouddriver's kubectl top po NAME --containers answers through the tunnel what it answers directly"() {
    given:
    start(cluster())

    when:
    def tunnelled = kubectl(throughTunnel, CLOUDDRIVER_TOP)
    def straight = kubectl(direct, CLOUDDRIVER_TOP)

    then:
    tunnelled == straight
    tunnelled.exit == 0
    // kubectl pads every cell, the last too.
    tunnelled.out.readLines()*.stripTrailing() == [
        'POD     NAME          CPU(cores)   MEMORY(bytes)',
        'web-1   istio-proxy   1m           16Mi',
        'web-1   nginx         250m         128Mi']
  }

  def "kubectl top pod and top node through the tunnel print what they print directly"() {
    given:
    start(cluster())

    expect:
    [['top', 'pod', '-n', 'shop'], ['top', 'pod', '-A'], ['top', 'node']].every { args ->
      def tunnelled = kubectl(throughTunnel, args as String[])
      assert tunnelled == kubectl(direct, args as String[])
      assert tunnelled.exit == 0
      true
    }
    kubectl(throughTunnel, 'top', 'node').out.readLines()*.stripTrailing() == [
        'NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)',
        'node-a   251m         12%      144Mi           3%']
  }

  def "a cluster without a metrics server: kubectl top says so through the tunnel as it does directly"() {
    given:
    start(cluster(KubernetesApiServer.builder().metricsApi(false)))

    when:
    def tunnelled = kubectl(throughTunnel, CLOUDDRIVER_TOP)

    then:
    tunnelled == kubectl(direct, CLOUDDRIVER_TOP)
    tunnelled.exit != 0
    tunnelled.err.trim() == 'error: Metrics API not available'
  }

  def "the cluster's RBAC refusing the agent the metrics API reaches kubectl as the cluster's 403"() {
    given:
    start(cluster(), { AccessControl.AccessRequest r -> r.group() != 'metrics.k8s.io' } as AccessControl.AccessRule)

    when:
    def tunnelled = kubectl(throughTunnel, CLOUDDRIVER_TOP)

    then:
    tunnelled == kubectl(direct, CLOUDDRIVER_TOP)
    tunnelled.exit != 0
    tunnelled.err.trim() == 'Error from server (Forbidden): pods.metrics.k8s.io "web-1" is forbidden: ' +
        'User "spinagent-agent" cannot get resource "pods" in API group "metrics.k8s.io" in the namespace "shop"'
  }

  def "kubectl get through the tunnel prints the cluster's tables, a real server's columns"() {
    given:
    start(cluster())

    when:
    def tunnelled = kubectl(throughTunnel, 'get', 'deployments,replicasets,pods,services', '-n', 'shop')

    then:
    tunnelled == kubectl(direct, 'get', 'deployments,replicasets,pods,services', '-n', 'shop')
    tunnelled.out == '''\
        NAME                  READY   UP-TO-DATE   AVAILABLE   AGE
        deployment.apps/web   1/2     2            1           0s

        NAME                             DESIRED   CURRENT   READY   AGE
        replicaset.apps/web-6d4cf56db6   2         2         1       0s

        NAME                       READY   STATUS    RESTARTS   AGE
        pod/web-1                  2/2     Running   0          0s
        pod/web-6d4cf56db6-q9tdc   0/2     Pending   0          0s

        NAME          TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
        service/web   ClusterIP   10.96.41.7   <none>        80/TCP    0s
        '''.stripIndent()

    when:
    def wide = kubectl(throughTunnel, 'get', 'pods', '-o', 'wide', '-n', 'shop')

    then:
    wide == kubectl(direct, 'get', 'pods', '-o', 'wide', '-n', 'shop')
    wide.out == '''\
        NAME                   READY   STATUS    RESTARTS   AGE   IP            NODE     NOMINATED NODE   READINESS GATES
        web-1                  2/2     Running   0          0s    10.244.1.12   node-a   <none>           <none>
        web-6d4cf56db6-q9tdc   0/2     Pending   0          0s    <none>        <none>   <none>           <none>
        '''.stripIndent()
  }

  /** A cluster with one node, a Deployment and its ReplicaSet, one running pod and one pending. */
  private KubernetesApiServer cluster(KubernetesApiServer.Builder builder = KubernetesApiServer.builder()) {
    // kubectl from the Google Cloud SDK runs the kubectl release of the server's minor version.
    def server = builder.gitVersion('v1.32.4').clock(clock).initialNamespaces(['default', 'shop']).start()
    def spec = [containers: [[name: 'nginx', image: 'nginx:1.27', resources: [requests: [cpu: '250m', memory: '128Mi']]],
                             [name: 'istio-proxy', image: 'istio/proxyv2:1.24.0']]]
    def labels = [app: 'web', 'pod-template-hash': '6d4cf56db6']
    create(server, [apiVersion: 'v1', kind: 'Node', metadata: [name: 'node-a']],
        [allocatable: [cpu: '2', memory: '4Gi'], conditions: [[type: 'Ready', status: 'True']]])
    create(server, [apiVersion: 'apps/v1', kind: 'Deployment', metadata: [name: 'web', namespace: 'shop'],
                    spec: [replicas: 2, selector: [matchLabels: [app: 'web']], template: [metadata: [labels: [app: 'web']], spec: spec]]],
        [replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1])
    create(server, [apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: [name: 'web-6d4cf56db6', namespace: 'shop', labels: labels],
                    spec: [replicas: 2, selector: [matchLabels: labels], template: [metadata: [labels: labels], spec: spec]]],
        [replicas: 2, readyReplicas: 1])
    def running = [running: [startedAt: '2025-03-01T12:00:00Z']]
    create(server, [apiVersion: 'v1', kind: 'Pod', metadata: [name: 'web-1', namespace: 'shop', labels: labels],
                    spec: spec + [nodeName: 'node-a']],
        [phase: 'Running', podIP: '10.244.1.12', conditions: [[type: 'Ready', status: 'True']],
         containerStatuses: [[name: 'nginx', ready: true, restartCount: 0, state: running],
                             [name: 'istio-proxy', ready: true, restartCount: 0, state: running]]])
    create(server, [apiVersion: 'v1', kind: 'Pod', metadata: [name: 'web-6d4cf56db6-q9tdc', namespace: 'shop', labels: labels],
                    spec: spec])
    create(server, [apiVersion: 'v1', kind: 'Service', metadata: [name: 'web', namespace: 'shop'],
                    spec: [clusterIP: '10.96.41.7', selector: [app: 'web'], ports: [[port: 80, targetPort: 8080]]]])
    server
  }

  private static void create(KubernetesApiServer server, Map object, Map status = null) {
    server.createObject(JSON.writeValueAsString(object))
    if (status != null) {
      server.mergePatchStatus(object.apiVersion as String, object.kind as String, object.metadata.namespace as String,
          object.metadata.name as String, JSON.writeValueAsString([status: status]))
    }
  }

  /**
   * The plugin with its tunnel, and the agent runtime serving account prod on {@code target} with
   * the token the cluster knows as spinagent-agent, whose access {@code rule} decides.
   */
  private void start(KubernetesApiServer target, AccessControl.AccessRule rule = { true } as AccessControl.AccessRule) {
    cluster = target
    plugin.start()
    tunnel = TunnelHttpServer.start(new TunnelProperties(port: 0), new OperationsProperties(), tokens,
        plugin.accounts, plugin.sessions, new OperationRecorder(new InMemoryOperationHistory(100), 'replica-1'))
    cluster.accessControl().acceptToken('agent-token', 'spinagent-agent', rule)
    direct = cluster.kubeconfig().token('agent-token').writeTo(dir.resolve('agent-kubeconfig.yaml'))
    // Built in code: this module's test class path has Clouddriver's older SnakeYAML, which the
    // agent's configuration loader does not run on.
    def account = new KubernetesAccountConfig('prod', Optional.of(direct), false, Optional.empty(),
        [], [], ['Deployment'], [], false, false, AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
    def config = new AgentConfig(new AgentIdentityConfig('agent-metrics', Optional.empty()),
        RealAgentFixture.agentConfig(plugin.channel.port(), true,
            new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
            new AuthConfig(Optional.empty(), Optional.empty())),
        new KubernetesConfig([account]), new ServerConfig(freePort()), new PrometheusConfig(false, 8008),
        LoggingConfig.DEFAULT, new TasksConfig(1000, 50), 30)
    def configFile = Files.writeString(dir.resolve('spinagent.yaml'), 'written by the spec; the runtime only watches it\n')
    agent = AgentRuntime.start(configFile, config, new ConfigLoader({ 'agent-metrics' }))
    throughTunnel = dir.resolve('clouddriver-kubeconfig.yaml')
    Files.writeString(throughTunnel, """\
        apiVersion: v1
        kind: Config
        clusters: [{name: prod, cluster: {server: '${tunnel.clusterUrl('prod')}', certificate-authority-data: '${tunnel.caCertificatePem().bytes.encodeBase64()}'}}]
        users: [{name: clouddriver, user: {token: '${tokens.issue('prod')}'}}]
        contexts: [{name: prod, context: {cluster: prod, user: clouddriver, namespace: default}}]
        current-context: prod
        """.stripIndent())
    eventually.eventually { assert plugin.accounts.find('prod').map { it.state() }.orElse(null) == AccountState.ACTIVE }
  }

  private static Map kubectl(Path kubeconfig, String... args) {
    Kubectl.run(kubeconfig, null, args)
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
