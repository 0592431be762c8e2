package io.spinagent.plugin.cache.sql

import static io.spinagent.plugin.cache.format.Manifests.ACCOUNT
import static io.spinagent.plugin.cache.format.Manifests.NS
import static io.spinagent.plugin.cache.format.Manifests.infra

import io.spinagent.plugin.cache.format.CacheKeys
import io.spinagent.plugin.cache.format.CacheTypes
import io.spinagent.plugin.config.SpinAgentProperties

/**
 * Issue 36: the rows of custom resources whose account declares them with a Spinnaker kind
 * ({@code customResources}: Argo's {@code Rollout} as {@code serverGroups}, Contour's {@code
 * HTTPProxy} as {@code loadBalancers}), checked as Clouddriver 5.90.0's readers read them.
 *
 * <p>Clouddriver's own caching gives such a kind no place in the application's clusters or load
 * balancers: {@code KubernetesCacheDataConverter.convertAsResource} classifies a kind through the
 * {@code KubernetesSpinnakerKindMap} bean, which Spring builds from the handler beans, the built-in
 * kinds only; an account's custom resources get handlers of their own that never reach it (so
 * {@code translateKubernetesKind} answers {@code unclassified}), and its readers ({@code
 * KubernetesClusterProvider}, {@code KubernetesLoadBalancerProvider}) follow relationships of the
 * built-in kinds mapped to server groups and load balancers only. The same code in every release
 * up to 2026.2.3 and main. The Spinnaker kind reaches Deck through the account's definition
 * ({@code /credentials}' {@code spinnakerKindMap}), not through the cache. So these rows are those
 * of any custom resource: their own infrastructure rows with their monikers, owner references, and
 * no application or cluster relationship; the Rollout's ReplicaSets are server groups, as
 * ReplicaSets always are.
 */
abstract class CustomResourceRowsSpecification extends SqlWriterFixture {

  static final String ROLLOUT = 'Rollout.argoproj.io'
  static final String HTTP_PROXY = 'HTTPProxy.projectcontour.io'

  static Map shop(String cluster) {
    ['moniker.spinnaker.io/application': 'shop', 'moniker.spinnaker.io/cluster': cluster]
  }

  /** A Rollout as Spinnaker deploys it, owning its ReplicaSet, whose Pod a Service selects. */
  static Map rollout() {
    [apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout',
     metadata  : [name: 'canary', namespace: NS, uid: 'ro-1', annotations: shop('rollout canary')],
     spec      : [replicas: 1, selector: [matchLabels: [app: 'canary']],
                  template: [metadata: [labels: [app: 'canary']], spec: [containers: [[name: 'web', image: 'nginx:1.27']]]],
                  strategy: [canary: [steps: [[setWeight: 20]]]]]]
  }

  static Map rolloutReplicaSet() {
    [apiVersion: 'apps/v1', kind: 'ReplicaSet',
     metadata  : [name: 'canary-5c8d7f', namespace: NS, uid: 'rs-9', annotations: shop('rollout canary'),
                  labels         : [app: 'canary', 'rollouts-pod-template-hash': '5c8d7f'],
                  ownerReferences: [[apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'canary', uid: 'ro-1', controller: true]]],
     spec      : [replicas: 1, selector: [matchLabels: [app: 'canary', 'rollouts-pod-template-hash': '5c8d7f']],
                  template: [metadata: [labels: [app: 'canary', 'rollouts-pod-template-hash': '5c8d7f']],
                             spec    : [containers: [[name: 'web', image: 'nginx:1.27']]]]]]
  }

  static Map rolloutPod() {
    [apiVersion: 'v1', kind: 'Pod',
     metadata  : [name: 'canary-5c8d7f-k2j4p', namespace: NS, uid: 'p-9', labels: [app: 'canary'],
                  ownerReferences: [[apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'canary-5c8d7f', uid: 'rs-9', controller: true]]],
     spec      : [containers: [[name: 'web', image: 'nginx:1.27']]]]
  }

  static Map canaryService() {
    [apiVersion: 'v1', kind: 'Service',
     metadata  : [name: 'canary', namespace: NS, uid: 's-9', annotations: ['moniker.spinnaker.io/application': 'shop']],
     spec      : [selector: [app: 'canary'], ports: [[port: 80]]]]
  }

  /** An HTTPProxy routing to that Service. */
  static Map httpProxy() {
    [apiVersion: 'projectcontour.io/v1', kind: 'HTTPProxy',
     metadata  : [name: 'shop', namespace: NS, uid: 'hp-1', annotations: shop('httpProxy shop')],
     spec      : [virtualhost: [fqdn: 'shop.example.com'], routes: [[services: [[name: 'canary', port: 80]]]]]]
  }

  def setup() {
    // spinagent.cache.kinds naming the custom resources, as it must for them to be cached at all
    writer = newWriter(new SpinAgentProperties.Cache().rememberedObjects, jooq,
        new CachedKinds([ROLLOUT, HTTP_PROXY, 'replicaSet', 'pod', 'service'], [], false))
  }

  def "a Rollout declared serverGroups and an HTTPProxy declared loadBalancers are cached as Clouddriver caches custom resources"() {
    when:
    streamListing([rollout(), rolloutReplicaSet(), rolloutPod(), canaryService(), httpProxy()])

    then: 'each custom resource has its infrastructure row, in the table of its kind, with its moniker'
    def rolloutKey = infra(ROLLOUT, 'canary')
    def proxyKey = infra(HTTP_PROXY, 'shop')
    rolloutKey == "kubernetes.v2:infrastructure:Rollout.argoproj.io:$ACCOUNT:$NS:canary".toString()
    writer.tables().resourceTable(ROLLOUT).equalsIgnoreCase('cats_v1_Rollout_argoproj_io')
    writer.tables().resourceTable(HTTP_PROXY).equalsIgnoreCase('cats_v1_HTTPProxy_projectcontour_io')
    def ro = reader.get(ROLLOUT, rolloutKey)
    ro.attributes.subMap(['kind', 'apiVersion', 'name', 'namespace', 'fullResourceName']) ==
        [kind: ROLLOUT, apiVersion: 'argoproj.io/v1alpha1', name: 'canary', namespace: NS, fullResourceName: "$ROLLOUT canary".toString()]
    ro.attributes.moniker == [app: 'shop', cluster: 'rollout canary']
    ro.attributes.manifest.spec.strategy == [canary: [steps: [[setWeight: 20]]]]
    ro.ttlSeconds == -1
    def proxy = reader.get(HTTP_PROXY, proxyKey)
    proxy.attributes.kind == HTTP_PROXY
    proxy.attributes.moniker == [app: 'shop', cluster: 'httpProxy shop']

    and: 'neither is linked to its application or a cluster; the ReplicaSet the Rollout owns is, as a server group'
    def rsKey = infra(CacheTypes.REPLICA_SET, 'canary-5c8d7f')
    def appKey = CacheKeys.application('shop')
    def clusterKey = CacheKeys.cluster(ACCOUNT, 'shop', 'rollout canary')
    normalised(proxy.relationships) == [:]
    !ro.relationships.containsKey(CacheTypes.APPLICATIONS) && !ro.relationships.containsKey(CacheTypes.CLUSTERS)
    normalised(reader.get(CacheTypes.REPLICA_SET, rsKey).relationships) == [
        (ROLLOUT)              : [rolloutKey] as Set,
        (CacheTypes.POD)       : [infra(CacheTypes.POD, 'canary-5c8d7f-k2j4p')] as Set,
        (CacheTypes.SERVICE)   : [infra(CacheTypes.SERVICE, 'canary')] as Set,
        (CacheTypes.APPLICATIONS): [appKey] as Set,
        (CacheTypes.CLUSTERS)  : [clusterKey] as Set]

    and: "the owner edge is written both ways, as the writer writes every edge (Clouddriver's agent of the custom kind would leave it out of the Rollout's row; none of its readers follows it)"
    normalised(ro.relationships) == [(CacheTypes.REPLICA_SET): [rsKey] as Set]

    and: "the application knows the ReplicaSet's cluster, the ReplicaSet and the Service; the cluster only the ReplicaSet"
    normalised(reader.get(CacheTypes.APPLICATIONS, appKey).relationships) == [
        (CacheTypes.CLUSTERS)   : [clusterKey] as Set,
        (CacheTypes.REPLICA_SET): [rsKey] as Set,
        (CacheTypes.SERVICE)    : [infra(CacheTypes.SERVICE, 'canary')] as Set]
    normalised(reader.get(CacheTypes.CLUSTERS, clusterKey).relationships) == [
        (CacheTypes.REPLICA_SET) : [rsKey] as Set,
        (CacheTypes.APPLICATIONS): [appKey] as Set]
    reader.all(CacheTypes.CLUSTERS).keySet() == [clusterKey] as Set

    and: "Deck's application view: the ReplicaSet is the server group, the Service the load balancer"
    reader.walk('shop') == [
        clusters     : ['rollout canary': [
            serverGroups: ['canary-5c8d7f': [instances: ['canary-5c8d7f-k2j4p'] as Set, loadBalancers: ['canary'] as Set]],
            managers    : [] as Set]],
        loadBalancers: ['canary'] as Set,
        ingresses    : [] as Set]
  }

  def "a Rollout that goes takes its row and its edges with it, and the cluster stays with its ReplicaSet"() {
    given:
    streamListing([rollout(), rolloutReplicaSet(), rolloutPod(), canaryService(), httpProxy()])

    when:
    commit(delete(rollout(), '2'), delete(httpProxy(), '2'))

    then:
    reader.get(ROLLOUT, infra(ROLLOUT, 'canary')) == null
    reader.get(HTTP_PROXY, infra(HTTP_PROXY, 'shop')) == null
    reader.all(CacheTypes.CLUSTERS).keySet() == [CacheKeys.cluster(ACCOUNT, 'shop', 'rollout canary')] as Set
    // the owner reference stays on the ReplicaSet: Clouddriver relates an owner whether or not it exists
    normalised(reader.get(CacheTypes.REPLICA_SET, infra(CacheTypes.REPLICA_SET, 'canary-5c8d7f')).relationships)[ROLLOUT] ==
        [infra(ROLLOUT, 'canary')] as Set
  }
}
