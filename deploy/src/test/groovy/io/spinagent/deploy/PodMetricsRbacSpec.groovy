package io.spinagent.deploy

import groovy.json.JsonOutput
import io.spinagent.testkit.kubernetes.AccessControl
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Shared
import spock.lang.Specification

/**
 * Every RBAC variant of deploy/ lets the agent read what kubectl top reads, so that Clouddriver's
 * {@code kubectl --namespace=<ns> top po <pod> --containers} through the agent's tunnel works for
 * an account with metrics: true. The rendered rules are evaluated as an API server's RBAC would
 * (testkit's server, serving the metrics API as metrics-server does) and the real kubectl runs
 * against them with the agent's credentials.
 */
class PodMetricsRbacSpec extends Specification {

  @Shared Kubectl kubectl = Kubectl.inTempHome()
  @Shared KubernetesApiServer cluster
  @Shared Path kubeconfigs = Files.createTempDirectory('pod-metrics-rbac')

  def setupSpec() {
    cluster = KubernetesApiServer.builder().gitVersion(Renderings.KUBERNETES_VERSION)
        .initialNamespaces(['default', 'kube-system', 'team-a']).start()
    cluster.createObject(JsonOutput.toJson([apiVersion: 'v1', kind: 'Node', metadata: [name: 'node-a']]))
    cluster.mergePatchStatus('v1', 'Node', null, 'node-a', JsonOutput.toJson([status: [allocatable: [cpu: '2', memory: '4Gi']]]))
    cluster.createObject(JsonOutput.toJson([apiVersion: 'v1', kind: 'Pod', metadata: [name: 'web-1', namespace: 'team-a'],
        spec: [nodeName: 'node-a', containers: [[name: 'web', image: 'nginx:1.27', resources: [requests: [cpu: '200m', memory: '256Mi']]]]]]))
    cluster.mergePatchStatus('v1', 'Pod', 'team-a', 'web-1', JsonOutput.toJson([status: [phase: 'Running']]))
  }

  def cleanupSpec() {
    cluster?.close()
    kubectl.deleteHome()
    kubeconfigs.toFile().deleteDir()
  }

  def "#variant grants what kubectl top pod reads, and Clouddriver's call of it succeeds"() {
    given:
    def role = rendering().one(kind)
    def kubeconfig = agentKubeconfig(variant, RbacRules.accessRule(role.rules, role.metadata.namespace as String))

    when:
    def result = kubectl.run(null, ['--kubeconfig', kubeconfig.toString(), '--namespace=team-a', 'top', 'po', 'web-1', '--containers'])

    then:
    RbacRules.grants(role.rules).containsAll(RbacRules.POD_METRICS_GRANTS)
    result.exit() == 0
    result.out().readLines()*.stripTrailing() == ['POD     NAME   CPU(cores)   MEMORY(bytes)', 'web-1   web    200m         256Mi']

    where:
    variant                            | kind          | rendering
    'kustomize agent-mode'             | 'ClusterRole' | { Renderings.kustomize(kubectl, 'agent-mode') }
    'kustomize single-namespace'       | 'Role'        | { Renderings.kustomize(kubectl, 'single-namespace') }
    'helm default values'              | 'ClusterRole' | { Renderings.helm('spinagent') }
    'helm rbac.deploy=false'           | 'ClusterRole' | { Renderings.helm('spinagent', null, ['rbac.deploy': false]) }
    'helm example single-namespace'    | 'Role'        | { Renderings.helm('team-a', Renderings.helmExample('single-namespace')) }
  }

  def "#variant also grants what kubectl top node reads"() {
    given:
    def role = rendering().one('ClusterRole')
    def kubeconfig = agentKubeconfig(variant + ' node', RbacRules.accessRule(role.rules))

    when:
    def result = kubectl.run(null, ['--kubeconfig', kubeconfig.toString(), 'top', 'node'])

    then:
    RbacRules.grants(role.rules).containsAll(RbacRules.NODE_METRICS_GRANTS)
    result.exit() == 0
    result.out().readLines()*.stripTrailing() == [
        'NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)', 'node-a   200m         10%      256Mi           6%']

    where:
    variant                    | rendering
    'kustomize agent-mode'     | { Renderings.kustomize(kubectl, 'agent-mode') }
    'helm default values'      | { Renderings.helm('spinagent') }
    'helm rbac.deploy=false'   | { Renderings.helm('spinagent', null, ['rbac.deploy': false]) }
  }

  def "without its metrics.k8s.io rules the same ClusterRole gets kubectl top refused: the grant is what makes it work"() {
    given:
    def rules = Renderings.kustomize(kubectl, 'agent-mode').one('ClusterRole').rules
        .findAll { !('metrics.k8s.io' in it.apiGroups) }
    def kubeconfig = agentKubeconfig('no metrics rules', RbacRules.accessRule(rules))

    when:
    def result = kubectl.run(null, ['--kubeconfig', kubeconfig.toString(), '--namespace=team-a', 'top', 'po', 'web-1', '--containers'])

    then:
    result.exit() != 0
    result.err().contains('pods.metrics.k8s.io "web-1" is forbidden')
  }

  /** A kubeconfig with a token the cluster knows as the agent's service account, under {@code rule}. */
  private Path agentKubeconfig(String variant, AccessControl.AccessRule rule) {
    String token = 'token-' + variant.replaceAll(/[^A-Za-z0-9]+/, '-')
    cluster.accessControl().acceptToken(token, 'system:serviceaccount:spinagent:spinagent', rule)
    cluster.kubeconfig().token(token).writeTo(kubeconfigs.resolve(token + '.yaml'))
  }
}
