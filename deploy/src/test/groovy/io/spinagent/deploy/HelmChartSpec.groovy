package io.spinagent.deploy

import com.marcnuri.helm.Helm
import io.spinagent.deploy.observability.MonitoringObjects
import spock.lang.Shared
import spock.lang.Specification

/**
 * The Helm chart deploy/helm/spinagent-agent, linted and rendered by Helm itself (helm-java runs
 * Helm's Go code in-process): it renders the objects of each mode, the same ones the Kustomize
 * overlays render, and refuses values it cannot honour with a message naming the key.
 */
class HelmChartSpec extends Specification {

  @Shared Kubectl kubectl = Kubectl.inTempHome()

  def cleanupSpec() {
    kubectl.deleteHome()
  }

  def "helm lint --strict passes"() {
    when:
    def lint = new Helm(Renderings.chart()).lint().strict().call()

    then:
    !lint.failed
    lint.messages.every { it.startsWith('[INFO]') }
  }

  def "with #values it renders the objects of its mode"() {
    when:
    def manifests = Renderings.helm(namespace, example ? Renderings.helmExample(example) : null)

    then:
    manifests.kinds() == kinds as Set
    manifests.objects.findAll { it.kind in ['Role', 'RoleBinding'] }.every { it.metadata.namespace == 'team-a' }

    where:
    example               | namespace   | kinds
    null                  | 'spinagent' | ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Service', 'Deployment']
    'agent-mode'          | 'spinagent' | ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Service', 'Deployment']
    'infrastructure-mode' | 'spinagent' | ['ServiceAccount', 'ConfigMap', 'Service', 'Deployment']
    'single-namespace'    | 'team-a'    | ['ServiceAccount', 'Role', 'RoleBinding', 'ConfigMap', 'Service', 'Deployment']
    values = example ? "examples/${example}.yaml" : 'the default values'
  }

  def "the chart renders what the #overlay overlay renders: names, permissions, pod"() {
    given:
    def chart = Renderings.helm(namespace, Renderings.helmExample(overlay))
    def kustomize = Renderings.kustomize(kubectl, overlay)

    expect: 'the same objects, the Namespace aside (helm install --create-namespace makes it)'
    names(chart) == names(kustomize) - names(kustomize).findAll { it.startsWith('Namespace/') }

    and: 'the same permissions'
    ['Role', 'ClusterRole'].every { kind ->
      chart.ofKind(kind)*.rules.collect { RbacRules.grants(it) } == kustomize.ofKind(kind)*.rules.collect { RbacRules.grants(it) }
    }

    and: 'the same pod, up to the image and the resources the examples set'
    def chartPod = chart.one('Deployment').spec.template.spec
    def kustomizePod = kustomize.one('Deployment').spec.template.spec
    chartPod.securityContext == kustomizePod.securityContext
    chartPod.automountServiceAccountToken == kustomizePod.automountServiceAccountToken
    volumeSources(chartPod) - [clouddriverTls: 'secret spinagent-clouddriver-tls'] == volumeSources(kustomizePod)
    def chartContainer = chart.agentContainer()
    def kustomizeContainer = kustomize.agentContainer()
    ['args', 'env', 'ports', 'readinessProbe', 'livenessProbe', 'securityContext'].every {
      chartContainer[it] == kustomizeContainer[it]
    }
    chartContainer.volumeMounts.findAll { it.name != 'clouddriver-tls' } as Set == kustomizeContainer.volumeMounts as Set

    where:
    overlay               | namespace
    'agent-mode'          | 'spinagent'
    'infrastructure-mode' | 'spinagent'
    'single-namespace'    | 'team-a'
  }

  def "rbac.deploy: false makes a read-only account: watch verbs only"() {
    when:
    def manifests = Renderings.helm('spinagent', null, ['rbac.deploy': false])
    def grants = RbacRules.grants(manifests.one('ClusterRole').rules)

    then:
    grants.containsAll(RbacRules.watchGrants(RbacRules.defaultKinds()))
    !RbacRules.hasWriteVerb(grants)
  }

  def "rbac.extraRules adds the groups of custom resources to watch"() {
    given:
    def values = File.createTempFile('values', '.yaml')
    values.text = '''\
        rbac:
          extraRules:
            - apiGroups: [cert-manager.io]
              resources: ["*"]
              verbs: [get, list, watch]
        '''.stripIndent()

    when:
    def grants = RbacRules.grants(Renderings.helm('spinagent', values.toPath()).one('ClusterRole').rules)

    then:
    grants.containsAll(['cert-manager.io/* get', 'cert-manager.io/* list', 'cert-manager.io/* watch'])

    cleanup:
    values.delete()
  }

  def "config is written as spinagent.yaml as given, and the pod follows config.server.port"() {
    given:
    def values = File.createTempFile('values', '.yaml')
    values.text = '''\
        config:
          kubernetes:
            accounts:
              - name: edge-7
                serviceAccount: true
                kinds: [Deployment, Certificate.cert-manager.io]
        '''.stripIndent()

    when:
    def manifests = Renderings.helm('spinagent', values.toPath(), ['config.server.port': 9000])
    def config = AgentConfigCheck.load(manifests.name, manifests.agentConfig())

    then:
    config.kubernetes().accounts()*.name() == ['edge-7']
    config.kubernetes().accounts()[0].kinds() == ['Deployment', 'Certificate.cert-manager.io']
    config.server().port() == 9000
    manifests.agentContainer().ports == [[name: 'admin', containerPort: 9000, protocol: 'TCP']]
    manifests.one('Service').spec.ports[0].port == 9000
    manifests.one('Service').metadata.annotations['prometheus.io/port'] == '9000'

    cleanup:
    values.delete()
  }

  def "an invalid agent configuration in values renders, and the agent's check names the problem"() {
    when: 'Helm replaces the whole list when one index is set: the account loses its credentials'
    def manifests = Renderings.helm('spinagent', null, ['config.kubernetes.accounts[0].name': 'Prod_EU'])
    AgentConfigCheck.load(manifests.name, manifests.agentConfig())

    then:
    def error = thrown(AssertionError)
    error.message.contains("kubernetes.accounts[0].name: 'Prod_EU' is not a valid account name")
    error.message.contains('kubernetes.accounts[0].kubeconfigFile: is required unless serviceAccount is true')
  }

  def "monitoring on: a ServiceMonitor for the metrics Service, the alerts as a PrometheusRule, the dashboards for Grafana's sidecar"() {
    when:
    def manifests = Renderings.helm('spinagent', null, [
        'monitoring.serviceMonitor.enabled'           : true,
        'monitoring.serviceMonitor.labels.release'    : 'kube-prometheus-stack',
        'monitoring.serviceMonitor.interval'          : '30s',
        'monitoring.prometheusRule.enabled'           : true,
        'monitoring.prometheusRule.labels.release'    : 'kube-prometheus-stack',
        'monitoring.grafanaDashboards.enabled'        : true,
        'monitoring.grafanaDashboards.namespace'      : 'monitoring',
        'monitoring.grafanaDashboards.annotations.grafana_folder': 'SpinAgent'])

    then:
    manifests.kinds().containsAll(['ServiceMonitor', 'PrometheusRule'])
    !manifests.kinds().contains('PodMonitor')
    MonitoringObjects.checkServiceMonitor(manifests)
    MonitoringObjects.checkPrometheusRule(manifests)
    def dashboards = MonitoringObjects.checkDashboards(manifests)

    and: 'with the labels the Prometheus selects by, the interval, and the namespace and folder Grafana looks in'
    manifests.one('ServiceMonitor').metadata.labels.release == 'kube-prometheus-stack'
    manifests.one('ServiceMonitor').spec.endpoints[0].interval == '30s'
    !manifests.one('ServiceMonitor').spec.endpoints[0].containsKey('scrapeTimeout')
    manifests.one('PrometheusRule').metadata.labels.release == 'kube-prometheus-stack'
    dashboards.metadata.namespace == 'monitoring'
    dashboards.metadata.annotations == [grafana_folder: 'SpinAgent']
  }

  def "monitoring.podMonitor scrapes the pods' admin port, also without the metrics Service and on another port"() {
    when:
    def manifests = Renderings.helm('spinagent', null, [
        'monitoring.podMonitor.enabled': true, 'metrics.service.enabled': false, 'config.server.port': 9000])

    then:
    !manifests.kinds().contains('Service')
    MonitoringObjects.checkPodMonitor(manifests)
    manifests.agentContainer().ports == [[name: 'admin', containerPort: 9000, protocol: 'TCP']]
  }

  def "values the chart cannot honour, misspelt or mistyped fail with a message naming the key (#set)"() {
    when:
    Renderings.helm('spinagent', null, set)

    then:
    def error = thrown(IllegalStateException)
    error.message.contains(message)

    where:
    set                              | message
    [mode: 'sidecar']                | "at '/mode': value must be one of 'agent', 'infrastructure'"
    [mode: 'infrastructure']         | 'kubeconfigs.secretName is required in infrastructure mode'
    ['rbac.scope': 'cluster-wide']   | "at '/rbac/scope': value must be one of 'cluster', 'namespace'"
    ['rbac.scop': 'namespace']       | "at '/rbac': additional properties 'scop' not allowed"
    ['replicaCount': 'two']          | "at '/replicaCount': got string, want integer"
    ['serviceAccount.create': false] | 'serviceAccount.name is required when serviceAccount.create is false'
    ['monitoring.serviceMonitor.enabled': true, 'monitoring.podMonitor.enabled': true] | 'enable monitoring.serviceMonitor or monitoring.podMonitor, not both'
    ['monitoring.serviceMonitor.enabled': true, 'metrics.service.enabled': false] | 'monitoring.serviceMonitor.enabled needs metrics.service.enabled'
    ['monitoring.podMonitor.interval': 'often'] | "at '/monitoring/podMonitor/interval'"
    ['monitoring.prometheusRule.enable': true] | "at '/monitoring/prometheusRule': additional properties 'enable' not allowed"
  }

  /** Each volume's name and where its content comes from, ignoring how a Secret's keys are listed. */
  private static Map<String, Object> volumeSources(Map pod) {
    pod.volumes.collectEntries { volume ->
      [volume.name.replaceAll(/-(.)/) { all, c -> c.toUpperCase() },
       volume.secret ? "secret ${volume.secret.secretName}".toString() : volume.findAll { it.key != 'name' }]
    }
  }

  private static Set<String> names(Manifests manifests) {
    manifests.objects.collect { "${it.kind}/${it.metadata.namespace ?: ''}/${it.metadata.name}".toString() } as Set
  }
}
