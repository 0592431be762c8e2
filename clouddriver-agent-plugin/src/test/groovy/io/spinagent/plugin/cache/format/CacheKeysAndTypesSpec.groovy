package io.spinagent.plugin.cache.format

import com.google.common.hash.Hashing
import java.nio.charset.StandardCharsets
import spock.lang.Specification
import spock.lang.Tag
import spock.lang.Unroll

@Tag('one-class')
class CacheKeysAndTypesSpec extends Specification {

  // Keys.createKeyFromParts: "kubernetes.v2" + parts joined by ':', null → "", ':' → ';'
  def "keys are written as Clouddriver's Keys writes them"() {
    expect:
    CacheKeys.infrastructure('replicaSet', 'prod', 'web', 'frontend-7d9f8c6b5') ==
        'kubernetes.v2:infrastructure:replicaSet:prod:web:frontend-7d9f8c6b5'
    CacheKeys.infrastructure('namespace', 'prod', '', 'web') == 'kubernetes.v2:infrastructure:namespace:prod::web'
    CacheKeys.infrastructure('clusterRole', 'prod', null, 'system:coredns') ==
        'kubernetes.v2:infrastructure:clusterRole:prod::system;coredns'
    CacheKeys.application('shop') == 'kubernetes.v2:logical:applications:shop'
    CacheKeys.cluster('prod', 'shop', 'deployment frontend') == 'kubernetes.v2:logical:clusters:prod:shop:deployment frontend'
    CacheKeys.cluster('a:b', 'shop', 'c') == 'kubernetes.v2:logical:clusters:a;b:shop:c'
  }

  // Keys.parseKey: split on ':', ';' back to ':', part counts 6 / 4 / 6
  def "keys parse back"() {
    when:
    def infra = CacheKeys.parse('kubernetes.v2:infrastructure:clusterRole:prod::system;coredns').get()
    def cluster = CacheKeys.parse('kubernetes.v2:logical:clusters:prod:shop:deployment frontend').get()
    def app = CacheKeys.parse('kubernetes.v2:logical:applications:shop').get()

    then:
    infra.type() == 'clusterRole'
    infra.namespace() == ''
    infra.name() == 'system:coredns'
    cluster.type() == 'clusters'
    cluster.account() == 'prod'
    cluster.application() == 'shop'
    cluster.name() == 'deployment frontend'
    app.type() == 'applications'
    app.name() == 'shop'
    !CacheKeys.parse('aws:instances:x').isPresent()
    !CacheKeys.parse('kubernetes.v2:infrastructure:pod:prod:web').isPresent()
  }

  // KubernetesKind.from / toString + KubernetesApiGroup.isNativeGroup
  @Unroll
  def "#apiVersion #kind is cache type #type"() {
    expect:
    CacheTypes.forKind(apiVersion, kind) == type

    where:
    apiVersion                     | kind                       || type
    'apps/v1'                      | 'Deployment'               || 'deployment'
    'apps/v1'                      | 'ReplicaSet'               || 'replicaSet'
    'extensions/v1beta1'           | 'ReplicaSet'               || 'replicaSet'
    'apps/v1'                      | 'StatefulSet'              || 'statefulSet'
    'apps/v1'                      | 'DaemonSet'                || 'daemonSet'
    'batch/v1'                     | 'Job'                      || 'job'
    'batch/v1'                     | 'CronJob'                  || 'cronJob'
    'v1'                           | 'Pod'                      || 'pod'
    'v1'                           | 'Service'                  || 'service'
    'networking.k8s.io/v1'         | 'Ingress'                  || 'ingress'
    'networking.k8s.io/v1'         | 'NetworkPolicy'            || 'networkPolicy'
    'v1'                           | 'Namespace'                || 'namespace'
    'v1'                           | 'ConfigMap'                || 'configMap'
    'v1'                           | 'Secret'                   || 'secret'
    'v1'                           | 'Event'                    || 'event'
    'events.k8s.io/v1'             | 'Event'                    || 'Event.events.k8s.io'
    'apiextensions.k8s.io/v1'      | 'CustomResourceDefinition' || 'customResourceDefinition'
    'autoscaling/v2'               | 'HorizontalPodAutoscaler'  || 'horizontalpodautoscaler'
    'v1'                           | 'Endpoints'                || 'Endpoints'
    'coordination.k8s.io/v1'       | 'Lease'                    || 'Lease.coordination.k8s.io'
    'cert-manager.io/v1'           | 'Certificate'              || 'Certificate.cert-manager.io'
    'crd.projectcalico.org/v1'     | 'NetworkPolicy'            || 'NetworkPolicy.crd.projectcalico.org'
    'Argoproj.io/v1alpha1'         | 'Rollout'                  || 'Rollout.argoproj.io'
  }

  def "spinnaker kinds follow the handlers"() {
    expect:
    CacheTypes.spinnakerKind('deployment') == CacheTypes.SpinnakerKind.SERVER_GROUP_MANAGERS
    ['replicaSet', 'statefulSet', 'daemonSet', 'job', 'cronJob'].every { CacheTypes.spinnakerKind(it) == CacheTypes.SpinnakerKind.SERVER_GROUPS }
    CacheTypes.spinnakerKind('pod') == CacheTypes.SpinnakerKind.INSTANCES
    CacheTypes.spinnakerKind('ingress') == CacheTypes.SpinnakerKind.LOAD_BALANCERS
    CacheTypes.spinnakerKind('networkPolicy') == CacheTypes.SpinnakerKind.SECURITY_GROUPS
    CacheTypes.spinnakerKind('namespace') == CacheTypes.SpinnakerKind.UNCLASSIFIED
    CacheTypes.spinnakerKind('Certificate.cert-manager.io') == CacheTypes.SpinnakerKind.UNCLASSIFIED
  }

  // SqlNames.resourceTableName / relTableName / checkTableName
  def "table names are sanitized, namespaced and shortened like cats-sql's"() {
    expect:
    CacheTypes.resourceTable('replicaSet', null, CacheTypes.Dialect.MYSQL) == 'cats_v1_replicaSet'
    CacheTypes.relTable('replicaSet', null, CacheTypes.Dialect.MYSQL) == 'cats_v1_replicaSet_rel'
    CacheTypes.resourceTable('applications', 'blue', CacheTypes.Dialect.POSTGRES) == 'cats_v1_blue_applications'
    CacheTypes.resourceTable('Certificate.cert-manager.io', null, CacheTypes.Dialect.MYSQL) == 'cats_v1_Certificate_cert_manager_io'

    when: 'too long: cut name + first 16 hex digits of murmur3_128(name + suffix) + suffix, total = limit'
    def type = 'ClusterIssuerConfiguration.acme-certificates.some-very-long-vendor.example.com'
    def name = type.replaceAll('[^A-Za-z0-9_]', '_')
    def hash = Hashing.murmur3_128().hashBytes((name + '_rel').getBytes(StandardCharsets.UTF_8)).toString().substring(0, 16)
    def table = CacheTypes.relTable(type, null, 64)
    // available = 64 - len("cats_v1_") - len("_rel") - 16 - 1 = 35 → name[0..35] (36 chars)
    then:
    table == 'cats_v1_' + name.substring(0, 36) + hash + '_rel'
    table.length() == 64
  }

  // SqlNames.checkAgentName
  def "agent column values are cut like cats-sql's"() {
    given:
    def agent = 'replicaSet:' + 'x' * 200
    def hash = Hashing.murmur3_128().hashBytes(agent.getBytes(StandardCharsets.UTF_8)).toString()

    expect:
    CacheTypes.agentColumn('prod/KubernetesCoreCachingAgent[1/1]', 127) == 'prod/KubernetesCoreCachingAgent[1/1]'
    // available = max(127 - 32 - 1, 10) = 94 → 95 chars kept + 32 hash chars
    CacheTypes.agentColumn(agent, 127) == agent.substring(0, 95) + hash
    CacheTypes.agentColumn(agent, 127).length() == 127
  }

  // SqlCache.getHash: SHA-256 of the UTF-8 body, lower-case hex
  def "body hash is lower-case hex sha-256"() {
    expect:
    CacheRecord.bodyHash('abc') == 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
  }
}
