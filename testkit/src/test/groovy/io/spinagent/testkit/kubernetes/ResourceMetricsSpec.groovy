package io.spinagent.testkit.kubernetes

import groovy.json.JsonOutput
import java.nio.file.Files
import java.nio.file.Path
import java.time.Instant
import spock.lang.Shared

/**
 * The resource metrics API as metrics-server serves it, computed from the stored Pods and Nodes:
 * kubectl top pod and top node print what the containers request (or are limited to, or the
 * default), summed per pod and per node, against the nodes' allocatable resources.
 */
class ResourceMetricsSpec extends ApiServerSpecification {

  static final Instant NOW = Instant.parse('2025-03-01T12:00:00Z')

  @Shared SteppingClock clock = new SteppingClock(NOW)
  @Shared Path dir
  @Shared Path kubeconfig
  @Shared Kubectl kubectl

  @Override
  KubernetesApiServer.Builder newServer() {
    KubernetesApiServer.builder().gitVersion('v1.32.4').clock(clock).initialNamespaces(['default', 'shop'])
  }

  def setupSpec() {
    dir = Files.createTempDirectory('resource-metrics')
    kubectl = new Kubectl(dir)
    server.accessControl().acceptToken('admin')
    // Reads everything except the metrics API, as an account whose RBAC never granted it.
    server.accessControl().acceptToken('no-metrics', 'no-metrics',
        { AccessControl.AccessRequest r -> r.group() != 'metrics.k8s.io' } as AccessControl.AccessRule)
    kubeconfig = server.kubeconfig().token('admin').writeTo(dir.resolve('kubeconfig'))
    node('node-a', '2', '4Gi')
    node('node-b', '4', '8Gi')
    pod('web-1', 'node-a', [app: 'web'], [[name: 'nginx', resources: [requests: [cpu: '100m', memory: '64Mi']]],
                                          [name: 'istio-proxy']])
    pod('web-2', 'node-a', [app: 'web'], [[name: 'nginx', resources: [limits: [cpu: '500m', memory: '256Mi']]]])
    pod('api-1', 'node-b', [app: 'api'], [[name: 'api', resources: [requests: [cpu: '0.25', memory: '128974848']]]])
    pod('starting', null, [app: 'web'], [[name: 'nginx']], null)
    pod('finished', 'node-b', [app: 'batch'], [[name: 'job']], 'Succeeded')
  }

  def cleanupSpec() {
    dir?.toFile()?.deleteDir()
  }

  def "kubectl top pod: each running pod's containers summed"() {
    expect:
    top('pod', '-n', 'shop') == [
        'NAME    CPU(cores)   MEMORY(bytes)',
        'api-1   250m         123Mi',
        'web-1   101m         80Mi',
        'web-2   500m         256Mi']
    top('pod', '-n', 'shop', '-l', 'app=web') == [
        'NAME    CPU(cores)   MEMORY(bytes)',
        'web-1   101m         80Mi',
        'web-2   500m         256Mi']
  }

  def "kubectl top pod NAME --containers, as Clouddriver asks for one pod's metrics"() {
    expect:
    top('pod', 'web-1', '--containers', '-n', 'shop') == [
        'POD     NAME          CPU(cores)   MEMORY(bytes)',
        'web-1   istio-proxy   1m           16Mi',
        'web-1   nginx         100m         64Mi']
  }

  def "kubectl top node: the node's running pods against its allocatable resources"() {
    expect:
    top('node') == [
        'NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)',
        'node-a   601m         30%      336Mi           8%',
        'node-b   250m         6%       123Mi           1%']
  }

  def "a pod that does not run has no metrics; one that does not exist is not found"() {
    when:
    def starting = kubectl.run(kubeconfig, 'top', 'pod', 'starting', '-n', 'shop')
    def missing = kubectl.run(kubeconfig, 'top', 'pod', 'nowhere', '-n', 'shop')

    then:
    starting.exit != 0
    starting.err.trim() == 'Error from server (NotFound): podmetrics.metrics.k8s.io "shop/starting" not found'
    missing.exit != 0
    missing.err.trim() == 'Error from server (NotFound): pods "nowhere" not found'
  }

  def "PodMetrics and NodeMetrics have metrics-server's shape"() {
    when:
    def pod = http(client(server, 'admin'), 'GET', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/web-1').json
    def nodes = http(client(server, 'admin'), 'GET', '/apis/metrics.k8s.io/v1beta1/nodes').json

    then:
    pod == [kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1',
            metadata: [name: 'web-1', namespace: 'shop', creationTimestamp: '2025-03-01T12:00:00Z', labels: [app: 'web']],
            timestamp: '2025-03-01T12:00:00Z', window: '15s',
            containers: [[name: 'nginx', usage: [cpu: '100m', memory: '64Mi']],
                         [name: 'istio-proxy', usage: [cpu: '1m', memory: '16Mi']]]]
    nodes.kind == 'NodeMetricsList'
    nodes.apiVersion == 'metrics.k8s.io/v1beta1'
    nodes.items*.metadata*.name == ['node-a', 'node-b']
    nodes.items*.usage == [[cpu: '601m', memory: '336Mi'], [cpu: '250m', memory: '123Mi']]
  }

  def "discovery lists metrics.k8s.io/v1beta1 as metrics-server registers it, in both forms"() {
    when:
    def client = client(server, 'admin')
    def groups = http(client, 'GET', '/apis').json
    def resources = http(client, 'GET', '/apis/metrics.k8s.io/v1beta1').json
    def aggregated = http(client, 'GET', '/apis', null,
        [Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList']).json

    then:
    groups.groups.find { it.name == 'metrics.k8s.io' }.versions == [[groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1']]
    resources.resources.collect { [it.name, it.singularName, it.namespaced, it.kind, it.verbs] } == [
        ['nodes', '', false, 'NodeMetrics', ['get', 'list']],
        ['pods', '', true, 'PodMetrics', ['get', 'list']]]
    aggregated.items.find { it.metadata.name == 'metrics.k8s.io' }.versions[0].resources
        .collect { [it.resource, it.scope, it.responseKind.kind, it.verbs] } == [
        ['nodes', 'Cluster', 'NodeMetrics', ['get', 'list']],
        ['pods', 'Namespaced', 'PodMetrics', ['get', 'list']]]
  }

  def "kubectl get podmetrics prints metrics-server's table"() {
    expect:
    kubectl.ok(kubeconfig, 'get', 'podmetrics', '-n', 'shop') == '''\
        NAME    CPU    MEMORY   WINDOW
        api-1   250m   123Mi    15s
        web-1   101m   80Mi     15s
        web-2   500m   256Mi    15s
        '''.stripIndent()
  }

  def "credentials the cluster's RBAC refuses the metrics API get 403, as from a real server"() {
    given:
    def refused = server.kubeconfig().token('no-metrics').writeTo(dir.resolve('no-metrics-kubeconfig'))

    when:
    def result = kubectl.run(refused, 'top', 'pod', '-n', 'shop')

    then:
    result.exit != 0
    result.err.contains('pods.metrics.k8s.io is forbidden: User "no-metrics" cannot list resource "pods" ' +
        'in API group "metrics.k8s.io" in the namespace "shop"')
  }

  def "a cluster without a metrics server: kubectl top says the Metrics API is not available"() {
    given:
    def bare = startServer(KubernetesApiServer.builder().gitVersion('v1.32.4').metricsApi(false))
    def bareKubeconfig = bare.kubeconfig().writeTo(dir.resolve('bare-kubeconfig'))

    when:
    def result = kubectl.run(bareKubeconfig, 'top', 'pod')

    then:
    result.exit != 0
    result.err.trim() == 'error: Metrics API not available'
    http(client(bare), 'GET', '/apis/metrics.k8s.io/v1beta1/pods').status == 404
  }

  /** kubectl top's lines; it pads every cell, the last one too, so trailing blanks are cut. */
  private List<String> top(String... args) {
    kubectl.ok(kubeconfig, (['top'] + args.toList()) as String[]).readLines()*.stripTrailing()
  }

  private void node(String name, String cpu, String memory) {
    server.createObject(JsonOutput.toJson([apiVersion: 'v1', kind: 'Node', metadata: [name: name]]))
    server.mergePatchStatus('v1', 'Node', null, name, JsonOutput.toJson([status: [
        capacity: [cpu: cpu, memory: memory], allocatable: [cpu: cpu, memory: memory],
        conditions: [[type: 'Ready', status: 'True']]]]))
  }

  private void pod(String name, String node, Map labels, List<Map> containers, String phase = 'Running') {
    def spec = [containers: containers.collect { it + [image: 'example/app:1'] }]
    if (node) {
      spec.nodeName = node
    }
    server.createObject(JsonOutput.toJson([apiVersion: 'v1', kind: 'Pod',
                                           metadata: [name: name, namespace: 'shop', labels: labels], spec: spec]))
    if (phase) {
      server.mergePatchStatus('v1', 'Pod', 'shop', name, JsonOutput.toJson([status: [phase: phase]]))
    }
  }
}
