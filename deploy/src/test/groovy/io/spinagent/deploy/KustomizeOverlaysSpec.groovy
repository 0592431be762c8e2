package io.spinagent.deploy

import io.spinagent.deploy.observability.MonitoringObjects
import java.nio.file.Files
import spock.lang.Shared
import spock.lang.Specification

/**
 * The Kustomize overlays, rendered with the real {@code kubectl kustomize} an operator runs: each
 * mode gets the objects and permissions it needs, and nothing more.
 */
class KustomizeOverlaysSpec extends Specification {

  @Shared Kubectl kubectl = Kubectl.inTempHome()

  def cleanupSpec() {
    kubectl.deleteHome()
  }

  def "the overlay #overlay renders the objects of its mode"() {
    when:
    def manifests = Renderings.kustomize(kubectl, overlay)

    then:
    manifests.kinds() == kinds as Set
    manifests.objects.findAll { it.metadata.namespace }.every { it.metadata.namespace == namespace }

    where:
    overlay               | namespace   | kinds
    'agent-mode'          | 'spinagent' | ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Service', 'Deployment']
    'infrastructure-mode' | 'spinagent' | ['Namespace', 'ServiceAccount', 'ConfigMap', 'Service', 'Deployment']
    'single-namespace'    | 'team-a'    | ['ServiceAccount', 'Role', 'RoleBinding', 'ConfigMap', 'Service', 'Deployment']
  }

  def "the specs know every kind the agent watches by default"() {
    expect:
    RbacRules.DEFAULT_KIND_RESOURCES.keySet() == RbacRules.defaultKinds()
  }

  def "agent mode: the ClusterRole lets the agent watch every default kind, check its access and deploy"() {
    given:
    def manifests = Renderings.kustomize(kubectl, 'agent-mode')
    def grants = RbacRules.grants(manifests.one('ClusterRole').rules)
    def binding = manifests.one('ClusterRoleBinding')
    def account = AgentConfigCheck.load('agent-mode', manifests.agentConfig()).kubernetes().accounts()[0]

    expect:
    grants.containsAll(RbacRules.watchGrants(RbacRules.defaultKinds()))
    grants.contains('authorization.k8s.io/selfsubjectaccessreviews create')
    grants.containsAll(RbacRules.DEPLOY_GRANTS)

    and: 'bound to the service account the agent runs as'
    binding.roleRef == [apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: manifests.one('ClusterRole').metadata.name]
    binding.subjects == [[kind: 'ServiceAccount', name: manifests.one('ServiceAccount').metadata.name, namespace: 'spinagent']]
    manifests.one('Deployment').spec.template.spec.serviceAccountName == manifests.one('ServiceAccount').metadata.name

    and: 'its one account uses that service account'
    account.serviceAccount()
  }

  def "infrastructure mode: kubeconfigs come from a Secret, and the agent has no credentials of the cluster it runs in"() {
    given:
    def manifests = Renderings.kustomize(kubectl, 'infrastructure-mode')
    def pod = manifests.one('Deployment').spec.template.spec
    def kubeconfigMount = manifests.agentContainer().volumeMounts.find { it.name == 'kubeconfigs' }
    def accounts = AgentConfigCheck.load('infrastructure-mode', manifests.agentConfig()).kubernetes().accounts()

    expect:
    pod.volumes.find { it.name == 'kubeconfigs' }.secret.secretName == 'spinagent-kubeconfigs'
    accounts.size() > 1
    accounts.every { it.kubeconfigFile().get().startsWith(kubeconfigMount.mountPath) && !it.serviceAccount() }

    and:
    pod.automountServiceAccountToken == false
    manifests.one('ServiceAccount').automountServiceAccountToken == false
    manifests.kinds().intersect(['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']).isEmpty()

    and: 'it holds several clusters, so it gets more memory than an agent-mode pod'
    manifests.agentContainer().resources.limits.memory == '4Gi'
  }

  def "single namespace: a Role in the watched namespace and nothing cluster-wide"() {
    given:
    def manifests = Renderings.kustomize(kubectl, 'single-namespace')
    def grants = RbacRules.grants(manifests.one('Role').rules)
    def account = AgentConfigCheck.load('single-namespace', manifests.agentConfig()).kubernetes().accounts()[0]
    def namespacedKinds = RbacRules.defaultKinds() - RbacRules.CLUSTER_SCOPED_DEFAULT_KINDS

    expect:
    manifests.objects.every { it.metadata.namespace == 'team-a' }
    grants.containsAll(RbacRules.watchGrants(namespacedKinds))
    grants.containsAll(RbacRules.DEPLOY_GRANTS)
    manifests.one('RoleBinding').subjects == [[kind: 'ServiceAccount', name: 'spinagent', namespace: 'team-a']]

    and: 'the account asks for nothing the Role does not grant'
    account.namespaces() == ['team-a']
    account.onlyNamespacedResources()
    account.serviceAccount()
  }

  def "an operator's own overlay can move the agent to another namespace, bindings included"() {
    given: 'an overlay of the operator that uses ours as its base'
    def dir = Files.createTempDirectory(Renderings.deployDir().resolve('target'), 'operator-overlay')
    def base = dir.relativize(Renderings.overlay('agent-mode'))
    Files.writeString(dir.resolve('kustomization.yaml'), """\
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: spinnaker-agents
        resources:
          - $base
        images:
          - name: spinagent/spinagent-agent
            newName: registry.example.com/spinnaker/spinagent-agent
        """.stripIndent())

    when:
    def manifests = new Manifests('operator overlay', kubectl.kustomize(dir))

    then:
    manifests.one('Namespace').metadata.name == 'spinnaker-agents'
    manifests.one('ClusterRoleBinding').subjects[0].namespace == 'spinnaker-agents'
    manifests.agentContainer().image == 'registry.example.com/spinnaker/spinagent-agent:0.1.0'

    cleanup:
    dir?.toFile()?.deleteDir()
  }

  def "an operator's overlay switches on #components: the monitors scrape the agents, the alerts and dashboards come along"() {
    given: 'an overlay of the operator on ours, with our components and the label its Prometheus selects by'
    def dir = Files.createTempDirectory(Renderings.deployDir().resolve('target'), 'monitoring-overlay')
    def base = dir.relativize(Renderings.overlay(overlay))
    def componentPaths = components.collect { dir.relativize(Renderings.deployDir().resolve('kustomize/components').resolve(it)) }
    Files.writeString(dir.resolve('kustomization.yaml'), """\
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: $namespace
        resources:
          - $base
        components:
        ${componentPaths.collect { "  - $it" }.join('\n        ')}
        labels:
          - pairs:
              release: kube-prometheus-stack
        """.stripIndent())

    when:
    def manifests = new Manifests("$overlay with $components", kubectl.kustomize(dir))

    then:
    checks.each { MonitoringObjects."$it"(manifests) }
    manifests.objects.findAll { it.kind in ['ServiceMonitor', 'PodMonitor', 'PrometheusRule'] }.every {
      it.metadata.namespace == namespace && it.metadata.labels.release == 'kube-prometheus-stack'
    }
    manifests.ofKind('PodMonitor').size() + manifests.ofKind('ServiceMonitor').size() == 1

    cleanup:
    dir?.toFile()?.deleteDir()

    where:
    overlay               | namespace   | components                                                  | checks
    'agent-mode'          | 'spinagent' | ['service-monitor', 'prometheus-rule', 'grafana-dashboards'] | ['checkServiceMonitor', 'checkPrometheusRule', 'checkDashboards']
    'single-namespace'    | 'team-a'    | ['pod-monitor', 'prometheus-rule']                          | ['checkPodMonitor', 'checkPrometheusRule']
    'infrastructure-mode' | 'spinagent' | ['pod-monitor']                                             | ['checkPodMonitor']
  }
}
