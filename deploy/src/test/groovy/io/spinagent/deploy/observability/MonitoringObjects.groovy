package io.spinagent.deploy.observability

import groovy.json.JsonSlurper
import io.spinagent.deploy.Manifests

import java.nio.file.Files

/**
 * What the Prometheus Operator objects and the dashboards' ConfigMap of a rendering must be for the
 * agents to be scraped and the kit to work: a ServiceMonitor that selects the metrics Service and
 * scrapes /metrics on its port to the agent's admin port, a PodMonitor that selects the agent's pods
 * and scrapes their admin port, a PrometheusRule with the rules file's groups, and a ConfigMap for
 * Grafana's sidecar with both dashboards. Each check fails naming the rendering.
 */
final class MonitoringObjects {

  private MonitoringObjects() {}

  static void checkServiceMonitor(Manifests manifests) {
    Map monitor = manifests.one('ServiceMonitor')
    Map service = manifests.one('Service')
    assert monitor.apiVersion == 'monitoring.coreos.com/v1'
    assert monitor.metadata.namespace == service.metadata.namespace: "$manifests: a ServiceMonitor sees only its own namespace"
    Map selector = monitor.spec.selector.matchLabels
    assert selector && selector.every { key, value -> service.metadata.labels[key] == value }:
        "$manifests: the ServiceMonitor's selector $selector does not select the Service's labels ${service.metadata.labels}"
    assert monitor.spec.endpoints.size() == 1
    Map endpoint = monitor.spec.endpoints[0]
    Map port = service.spec.ports.find { it.name == endpoint.port }
    assert port != null: "$manifests: the Service has no port named ${endpoint.port}"
    assert port.targetPort == 'admin' && adminPort(manifests) != null
    assert endpoint.path == '/metrics' && service.metadata.annotations['prometheus.io/path'] == '/metrics'
  }

  static void checkPodMonitor(Manifests manifests) {
    Map monitor = manifests.one('PodMonitor')
    Map deployment = manifests.one('Deployment')
    assert monitor.apiVersion == 'monitoring.coreos.com/v1'
    assert monitor.metadata.namespace == deployment.metadata.namespace: "$manifests: a PodMonitor sees only its own namespace"
    Map selector = monitor.spec.selector.matchLabels
    Map podLabels = deployment.spec.template.metadata.labels
    assert selector && selector.every { key, value -> podLabels[key] == value }:
        "$manifests: the PodMonitor's selector $selector does not select the pods' labels $podLabels"
    assert monitor.spec.podMetricsEndpoints.size() == 1
    Map endpoint = monitor.spec.podMetricsEndpoints[0]
    assert endpoint.port == 'admin' && adminPort(manifests) != null
    assert endpoint.path == '/metrics'
  }

  static void checkPrometheusRule(Manifests manifests) {
    Map rule = manifests.one('PrometheusRule')
    assert rule.apiVersion == 'monitoring.coreos.com/v1'
    assert rule.metadata.namespace == manifests.one('Deployment').metadata.namespace
    assert rule.spec == ObservabilityKit.rules(): "$manifests: the PrometheusRule's groups differ from ${ObservabilityKit.rulesFile()}"
  }

  /** The dashboards' ConfigMap, checked; returned for the caller's checks of its namespace and labels. */
  static Map checkDashboards(Manifests manifests) {
    Map configMap = manifests.ofKind('ConfigMap').find { it.metadata.labels?.grafana_dashboard == '1' }
    assert configMap != null: "$manifests: no ConfigMap labelled grafana_dashboard: \"1\""
    assert configMap.data.keySet() == ObservabilityKit.DASHBOARDS.keySet()
    configMap.data.each { String name, String json ->
      def shipped = new JsonSlurper().parseText(json)
      assert shipped == new JsonSlurper().parseText(Files.readString(ObservabilityKit.dashboardFile(name))):
          "$manifests: $name differs from deploy/observability/grafana/$name"
    }
    configMap
  }

  private static Map adminPort(Manifests manifests) {
    manifests.agentContainer().ports.find { it.name == 'admin' }
  }
}
