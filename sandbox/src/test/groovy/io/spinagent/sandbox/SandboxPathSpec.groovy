package io.spinagent.sandbox

import groovy.json.JsonSlurper
import io.spinagent.sandbox.cluster.DemoApplication
import io.spinagent.sandbox.cluster.DemoNodes
import io.spinagent.sandbox.host.PluginBundle
import io.spinagent.sandbox.view.CacheTables
import io.spinagent.sandbox.view.CacheView
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.util.concurrent.PollingConditions

/**
 * The whole data path through a running sandbox on the line under test, both ways, with real
 * components only: kubectl changes the simulated cluster → the agent's watch → the gRPC stream (TLS)
 * → the plugin → rows in Clouddriver's cache tables (PostgreSQL) → the live view; and kubectl through the tunnel
 * kubeconfig → the plugin's tunnel → the agent → the cluster → back through the stream into the cache.
 * Through the tunnel, kubectl prints the demo as it prints a real cluster: its tables, its nodes,
 * its pods' and nodes' metrics.
 */
@Stepwise
class SandboxPathSpec extends Specification {

  @Shared StringBuffer printed = new StringBuffer()
  @Shared SandboxOutput output = new SandboxOutput(printed)
  @Shared @AutoCleanup Sandbox sandbox
  @Shared CacheTables tables

  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)
  PollingConditions startup = new PollingConditions(timeout: 300, delay: 0.5)

  def setupSpec() {
    def sink = new OutputStream() {
      private final ByteArrayOutputStream line = new ByteArrayOutputStream()

      @Override
      synchronized void write(int b) {
        line.write(b)
        if (b == '\n' as char) {
          printed.append(line.toString(StandardCharsets.UTF_8))
          line.reset()
        }
      }
    }
    sandbox = Sandbox.start(SandboxOptions.parse(['--random-ports', '--no-color', '--refresh-millis', '200',
        '--line', SandboxSpecSupport.line()] + databaseArgs() as String[]), PluginBundle.built(),
        new PrintStream(sink, true, StandardCharsets.UTF_8))
    tables = new CacheTables(sandbox.database().jooq())
  }

  def "the agent's first sync fills Clouddriver's cache tables with the demo application"() {
    expect:
    startup.eventually {
      assert serverGroups().collectEntries { [(it.name()): it.instances().size()] }.values().toList() == [2]
    }

    and: 'the rows are where Clouddriver reads them, bodies and relationships alike'
    rows('cats_v1_pod') == 2
    rows('cats_v1_replicaSet') == 1
    rows('cats_v1_deployment') == 1
    rows('cats_v1_service') == 1
    rows('cats_v1_ingress') == 1
    rows("cats_v1_applications where id = 'kubernetes.v2:logical:applications:shop'") == 1

    and: 'the printed view shows them'
    eventually.eventually { assert output.instances().size() == 2 }
  }

  def "kubectl through the tunnel prints the demo as a real cluster's: ready pods on nodes, and their metrics"() {
    given: 'the names the demo controller generated'
    def replicaSet = names('replicasets').first()
    def pods = names('pods').sort()

    when:
    def listed = Kubectl.run(tunnelKubeconfig(), 'get', 'deployments,replicasets,pods,services')

    then: "a real API server's columns and cells"
    listed.exit == 0
    Kubectl.tables(listed.out) == [
      [['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
       ['deployment.apps/frontend', '2/2', '2', '2', '<age>']],
      [['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'],
       ["replicaset.apps/$replicaSet".toString(), '2', '2', '2', '<age>']],
      [['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']] + pods.collect { ["pod/$it".toString(), '1/1', 'Running', '0', '<age>'] },
      [['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'],
       ['service/frontend', 'ClusterIP', DemoApplication.SERVICE_IP, '<none>', '80/TCP', '<age>']]]

    when:
    def widePods = Kubectl.run(tunnelKubeconfig(), 'get', 'pods', '-o', 'wide')
    def nodes = Kubectl.run(tunnelKubeconfig(), 'get', 'nodes', '-o', 'wide')

    then: "the pods are spread over the two nodes, each with an address of its node's pod range"
    def podRows = Kubectl.tables(widePods.out)[0]
    podRows[0] == ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']
    podRows.tail().collect { it[6] }.sort() == DemoNodes.NAMES
    podRows.tail().every { it[5].startsWith("10.244.${DemoNodes.NAMES.indexOf(it[6]) + 1}.") }

    and: 'the nodes are Ready, with their addresses and what their kubelets report'
    Kubectl.tables(nodes.out) == [
      [['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']] +
        DemoNodes.NAMES.withIndex().collect { name, i ->
          [name, 'Ready', '<none>', '<age>', sandbox.cluster().gitVersion(), "192.168.49.${i + 2}".toString(), '<none>',
           'Debian GNU/Linux 12 (bookworm)', '6.1.0-sandbox', 'containerd://1.7.13'] }]

    when:
    def topPods = Kubectl.run(tunnelKubeconfig(), 'top', 'pod')
    def topNodes = Kubectl.run(tunnelKubeconfig(), 'top', 'node')

    then: 'each pod uses what a container requesting nothing is given, each node the sum of its pods'
    topPods.exit == 0
    Kubectl.tables(topPods.out) == [[['NAME', 'CPU(cores)', 'MEMORY(bytes)']] + pods.collect { [it, '1m', '16Mi'] }]
    topNodes.exit == 0
    Kubectl.tables(topNodes.out) ==
      [[['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']] + DemoNodes.NAMES.collect { [it, '1m', '0%', '16Mi', '0%'] }]

    and: 'the tunnel answers what the cluster answers'
    Kubectl.run(clusterKubeconfig(), 'top', 'node').out == topNodes.out
    Kubectl.run(clusterKubeconfig(), 'top', 'pod').out == topPods.out
  }

  def "kubectl on the cluster: scale → agent → plugin → cache rows → view"() {
    when:
    def scaled = Kubectl.run(clusterKubeconfig(), 'scale', 'deployment', 'frontend', '--replicas=3')

    then:
    scaled.exit == 0
    eventually.eventually {
      assert rows('cats_v1_pod') == 3
      assert serverGroups()*.instances().flatten().size() == 3
      assert serverGroups()[0].desired() == 3
      assert output.instances().size() == 3
    }

    when: 'a pod is deleted, the demo controller replaces it, and the cache follows both'
    def victim = serverGroups()[0].instances()[0].name()
    def deleted = Kubectl.run(clusterKubeconfig(), 'delete', 'pod', victim)

    then:
    deleted.exit == 0
    eventually.eventually {
      def names = serverGroups()*.instances().flatten()*.name()
      assert names.size() == 3
      assert !names.contains(victim)
      assert !output.latestView().contains(victim)
    }
  }

  def "a new pod template: a second ReplicaSet with the next revision replaces the first in the cache"() {
    when:
    def changed = Kubectl.run(clusterKubeconfig(), 'set', 'image', 'deployment/frontend', 'web=nginx:1.28')

    then:
    changed.exit == 0
    eventually.eventually {
      def groups = serverGroups()
      assert groups.size() == 2
      assert groups.find { it.desired() == 3 }.instances().size() == 3
      assert groups.find { it.desired() == 0 }.instances().isEmpty()
    }
  }

  def "kubectl as Clouddriver: tunnel → plugin → agent → cluster, and back through the stream into the cache"() {
    when: 'Clouddriver-style kubectl reads through the tunnel'
    def listed = Kubectl.run(tunnelKubeconfig(), 'get', 'deployments', '-o', 'json')

    then: 'it sees the cluster, through the agent'
    listed.exit == 0
    new JsonSlurper().parseText(listed.out).items*.metadata.name == ['frontend']

    when: 'it scales through the tunnel'
    def scaled = Kubectl.run(tunnelKubeconfig(), 'scale', 'deployment', 'frontend', '--replicas=1')

    then: 'the cluster changed, and the change came back into the cache and the view'
    scaled.exit == 0
    new JsonSlurper().parseText(sandbox.cluster().getObject('apps/v1', 'Deployment', 'default', 'frontend').get())
        .spec.replicas == 1
    eventually.eventually {
      assert rows('cats_v1_pod') == 1
      assert output.instances().size() == 1
    }

    when: 'a request with another token'
    def wrongToken = tunnelKubeconfig().parent.resolve('wrong-token.kubeconfig')
    Files.writeString(wrongToken, Files.readString(tunnelKubeconfig()).replaceAll(/token: '[^']+'/, "token: 'not-the-token'"))
    def refused = Kubectl.run(wrongToken, 'get', 'pods')

    then: 'the tunnel refuses it'
    refused.exit != 0
    refused.err.contains('Unauthorized') || refused.err.contains('the tunnel token')
  }

  /** The names of the objects of {@code resource} in the demo's namespace, as the cluster has them. */
  protected List<String> names(String resource) {
    def listed = Kubectl.run(clusterKubeconfig(), 'get', resource, '-o', 'json')
    assert listed.exit == 0: listed.err
    new JsonSlurper().parseText(listed.out).items*.metadata.name
  }

  /** The sandbox's database flags: none, for its embedded PostgreSQL. */
  protected List<String> databaseArgs() {
    []
  }

  protected List<CacheView.ServerGroup> serverGroups() {
    def view = CacheView.read(tables)
    view.applications().find { it.name() == 'shop' }?.clusters()?.collectMany { it.serverGroups() } ?: []
  }

  protected int rows(String tableAndCondition) {
    try {
      sandbox.database().jooq().fetchOne("select count(*) from $tableAndCondition".toString()).get(0, Integer)
    } catch (Exception ignored) {
      -1
    }
  }

  protected Path clusterKubeconfig() {
    sandbox.clusterKubeconfig()
  }

  protected Path tunnelKubeconfig() {
    sandbox.tunnelKubeconfig()
  }
}
