package io.spinagent.deploy

import io.spinagent.agent.config.AgentConfig
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Shared
import spock.lang.Specification

/**
 * What holds for every way deploy/ installs the agent (each Kustomize overlay, the Helm chart with
 * its defaults and with each example values file): the objects are valid Kubernetes objects that an
 * API server accepts, the agent configuration they ship is one the agent accepts, and the pod is
 * run the way the docs promise.
 */
class RenderedObjectsSpec extends Specification {

  @Shared Kubectl kubectl = Kubectl.inTempHome()
  @Shared List<Map> renderings = Renderings.all(kubectl)
  @Shared Path dir = Files.createTempDirectory('rendered-objects')

  def cleanupSpec() {
    kubectl.deleteHome()
    dir.toFile().deleteDir()
  }

  def "#rendering.manifests: every object reads as its kind's model class (no unknown field, none missing)"() {
    expect:
    rendering.manifests.objects.size() >= 4
    rendering.manifests.objects.each { TypedObjects.read(it) }

    where:
    rendering << renderings
  }

  def "#rendering.manifests: kubectl apply --dry-run=server accepts every object and the server stores none"() {
    given: 'a cluster where the agent namespace exists, as after the operator creates it'
    def server = KubernetesApiServer.builder().gitVersion('v1.32.4').requireNamespaces(true)
        .initialNamespaces(['default', 'kube-system', rendering.namespace]).start()
    def kubeconfig = server.kubeconfig().writeTo(dir.resolve("kubeconfig-${UUID.randomUUID()}"))
    long versionBefore = server.resourceVersion()

    when:
    def result = kubectl.applyServerDryRun(kubeconfig, rendering.manifests.yaml)

    then:
    result.exit() == 0
    def applied = result.out().readLines().findAll { it.trim() }
    applied.size() == rendering.manifests.objects.size()
    server.resourceVersion() == versionBefore
    server.getObject('apps/v1', 'Deployment', rendering.namespace, 'spinagent').isEmpty()

    cleanup:
    server?.close()

    where:
    rendering << renderings
  }

  def "the dry run is a real check: a server without the agent's namespace refuses the objects in it"() {
    given:
    def server = KubernetesApiServer.builder().gitVersion('v1.32.4').requireNamespaces(true)
        .initialNamespaces(['default', 'kube-system']).start()
    def kubeconfig = server.kubeconfig().writeTo(dir.resolve("kubeconfig-${UUID.randomUUID()}"))
    def singleNamespace = renderings.find { it.namespace == 'team-a' }.manifests as Manifests

    when:
    def result = kubectl.applyServerDryRun(kubeconfig, singleNamespace.yaml)

    then:
    result.exit() != 0
    result.err().contains('namespaces "team-a" not found')

    cleanup:
    server?.close()
  }

  def "#rendering.manifests: the agent accepts the configuration in its ConfigMap"() {
    given:
    def manifests = rendering.manifests as Manifests
    def container = manifests.agentContainer()
    def mounts = container.volumeMounts.collectEntries { [it.name, it.mountPath] }

    when:
    def config = AgentConfigCheck.load(manifests.name, manifests.agentConfig())
    def files = filesNamedBy(config)

    then: 'the agent reads the file where the ConfigMap is mounted'
    container.args == ['--config', mounts.config + '/spinagent.yaml']

    and: 'it serves /health and /metrics on the port the probes and the metrics Service use'
    def adminPort = container.ports.find { it.name == 'admin' }.containerPort
    config.server().port() == adminPort
    manifests.ofKind('Service').every { svc -> svc.spec.ports*.targetPort == ['admin'] }

    and: 'every file the configuration names is on a mounted volume'
    files.every { file -> mounts.values().any { file.toString().startsWith(it + '/') } }

    and: 'each account has the credentials of its mode'
    config.kubernetes().accounts().every { account ->
      account.serviceAccount() ? manifests.one('Deployment').spec.template.spec.automountServiceAccountToken != false
          : account.kubeconfigFile().isPresent()
    }

    where:
    rendering << renderings
  }

  def "#rendering.manifests: the agent runs as non-root with probes on its admin server and bounded resources"() {
    given:
    def manifests = rendering.manifests as Manifests
    def pod = manifests.one('Deployment').spec.template.spec
    def container = manifests.agentContainer()

    expect:
    pod.securityContext.runAsNonRoot == true
    pod.securityContext.runAsUser > 0
    container.securityContext.allowPrivilegeEscalation == false
    container.securityContext.readOnlyRootFilesystem == true
    container.securityContext.capabilities.drop == ['ALL']
    container.volumeMounts.any { it.mountPath == '/tmp' }

    container.readinessProbe.httpGet == [path: '/health', port: 'admin']
    container.livenessProbe.httpGet.port == 'admin'

    container.resources.requests.keySet() == ['cpu', 'memory'] as Set
    container.resources.limits.memory != null

    where:
    rendering << renderings
  }

  def "#rendering.manifests: the metrics Service reaches the agent's pods, ready or not"() {
    given:
    def manifests = rendering.manifests as Manifests
    def service = manifests.one('Service')
    def podLabels = manifests.one('Deployment').spec.template.metadata.labels

    expect:
    service.spec.selector.every { key, value -> podLabels[key] == value }
    service.spec.publishNotReadyAddresses == true
    service.metadata.annotations['prometheus.io/scrape'] == 'true'
    service.metadata.annotations['prometheus.io/path'] == '/metrics'

    where:
    rendering << renderings
  }

  /** Kubeconfigs, token and TLS files: what must be mounted for the agent to start its accounts. */
  static List<Path> filesNamedBy(AgentConfig config) {
    List<Optional<Path>> files = config.kubernetes().accounts()*.kubeconfigFile()
    def tls = config.clouddriver().tls()
    files += [config.clouddriver().auth().tokenFile(), tls.clientCertFile(), tls.clientKeyFile(), tls.cacertFile()]
    files.findAll { it.isPresent() }*.get()
  }
}
