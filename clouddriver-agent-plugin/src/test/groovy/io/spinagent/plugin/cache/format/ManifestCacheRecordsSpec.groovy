package io.spinagent.plugin.cache.format

import static io.spinagent.plugin.cache.format.Manifests.*

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.util.RawValue
import spock.lang.Specification
import spock.lang.Tag

/**
 * Expected values come from reading clouddriver v5.90.0:
 *  - keys: caching/Keys.java (createKeyFromParts);
 *  - attributes, logical links, owner references: caching/agent/KubernetesCacheDataConverter.java
 *    (convertAsResource, addLogicalRelationships, ownerReferenceRelationships, implicitRelationships);
 *  - bidirectional edges, sticky "pod"/"service" groups, logical "name" attribute and ttl:
 *    caching/agent/KubernetesCacheData.java;
 *  - service ↔ replicaSet / ingress → service / statefulSet → service / event → object:
 *    op/handler/KubernetesServiceHandler, KubernetesIngressHandler, KubernetesStatefulSetHandler,
 *    KubernetesEventHandler (addRelationships);
 *  - moniker: description/manifest/KubernetesManifestAnnotater.getMoniker;
 *  - ignore / onlySpinnakerManaged: caching/agent/KubernetesCachingAgent.shouldCacheManifest.
 */
@Tag('one-class')
class ManifestCacheRecordsSpec extends Specification {

  static final String APP_SHOP = 'kubernetes.v2:logical:applications:shop'
  static final String CLUSTER_FRONTEND = 'kubernetes.v2:logical:clusters:prod-k8s:shop:deployment frontend'

  AccountSnapshot snapshot = AccountSnapshot.build(ACCOUNT, all(), FormatOptions.DEFAULTS)

  Map rels(String id) {
    def record = snapshot.get(id).orElseThrow { new AssertionError("no record $id") }
    record.relationships().collectEntries { k, v -> [k, v as List] }
  }

  def "deployment: application, cluster, the replicaSet it owns, and the sticky empty groups"() {
    expect:
    rels(infra('deployment', 'frontend')) == [
        applications: [APP_SHOP],
        clusters    : [CLUSTER_FRONTEND],
        pod         : [],
        replicaSet  : [infra('replicaSet', 'frontend-7d9f8c6b5')],
        service     : []]
  }

  def "replicaSet: owner deployment, owned pod, service selecting its pod template, app and cluster"() {
    expect:
    rels(infra('replicaSet', 'frontend-7d9f8c6b5')) == [
        applications: [APP_SHOP],
        clusters    : [CLUSTER_FRONTEND],
        deployment  : [infra('deployment', 'frontend')],
        pod         : [infra('pod', 'frontend-7d9f8c6b5-x2x7k')],
        service     : [infra('service', 'frontend')]]   // not the ignored frontend-debug
  }

  def "pod: only its owner (instances are not linked to applications or clusters)"() {
    expect:
    rels(infra('pod', 'frontend-7d9f8c6b5-x2x7k')) == [
        pod       : [],
        replicaSet: [infra('replicaSet', 'frontend-7d9f8c6b5')],
        service   : []]
  }

  def "service: application (no cluster for load balancers), selected replicaSets, ingresses naming it"() {
    expect:
    rels(infra('service', 'frontend')) == [
        applications: [APP_SHOP],
        ingress     : [infra('ingress', 'shop')],
        pod         : [],
        replicaSet  : [infra('replicaSet', 'frontend-7d9f8c6b5')],
        service     : []]
  }

  def "ingress: only services that exist in its namespace"() {
    expect:
    rels(infra('ingress', 'shop')) == [
        applications: [APP_SHOP],                 // app parsed from the name 'shop'
        pod         : [],
        service     : [infra('service', 'frontend')]]   // 'legacy' is not cached
  }

  def "statefulSet and its headless service point at each other; no service selects a statefulSet"() {
    expect:
    rels(infra('statefulSet', 'redis')) == [
        applications: ['kubernetes.v2:logical:applications:redis'],
        clusters    : ['kubernetes.v2:logical:clusters:prod-k8s:redis:redis'],
        pod         : [],
        service     : [infra('service', 'redis-headless')]]
    rels(infra('service', 'redis-headless')) == [
        applications: ['kubernetes.v2:logical:applications:redis'],   // frigga: app 'redis', stack 'headless'
        pod         : [],
        service     : [],
        statefulSet : [infra('statefulSet', 'redis')]]
  }

  def "cronJob → job → pod by owner references, each server group in its own cluster"() {
    expect:
    rels(infra('cronJob', 'report-nightly')) == [
        applications: ['kubernetes.v2:logical:applications:report'],
        clusters    : ['kubernetes.v2:logical:clusters:prod-k8s:report:report-nightly'],
        job         : [infra('job', 'report-nightly-28512345')],
        pod         : [],
        service     : []]
    rels(infra('job', 'report-nightly-28512345')) == [
        applications: ['kubernetes.v2:logical:applications:report'],
        clusters    : ['kubernetes.v2:logical:clusters:prod-k8s:report:report-nightly-28512345'],
        cronJob     : [infra('cronJob', 'report-nightly')],
        pod         : [infra('pod', 'report-nightly-28512345-5jq8n')],
        service     : []]
  }

  def "application record: every linked object of the app, its clusters, name attribute, ttl 600"() {
    when:
    def app = snapshot.get(APP_SHOP).get()

    then:
    app.type() == 'applications'
    app.ttlSeconds() == 600
    app.attributes() == [name: 'shop']
    app.relationships().collectEntries { k, v -> [k, v as List] } == [
        clusters  : [CLUSTER_FRONTEND],
        deployment: [infra('deployment', 'frontend')],
        ingress   : [infra('ingress', 'shop')],
        pod       : [],
        replicaSet: [infra('replicaSet', 'frontend-7d9f8c6b5')],
        service   : [infra('service', 'frontend')]]
  }

  def "cluster record: its application and its server groups and managers"() {
    when:
    def cluster = snapshot.get(CLUSTER_FRONTEND).get()

    then:
    cluster.type() == 'clusters'
    cluster.ttlSeconds() == 600
    cluster.attributes() == [name: 'deployment frontend']
    cluster.relationships().collectEntries { k, v -> [k, v as List] } == [
        applications: [APP_SHOP],
        deployment  : [infra('deployment', 'frontend')],
        pod         : [],
        replicaSet  : [infra('replicaSet', 'frontend-7d9f8c6b5')],
        service     : []]
  }

  def "the snapshot has exactly the rows Clouddriver would write, per table"() {
    expect:
    snapshot.byType().collectEntries { t, rs -> [t, rs.size()] } == [
        applications: 3, clusters: 4, cronJob: 1, deployment: 1, ingress: 1, job: 1, pod: 2,
        replicaSet  : 1, service: 2, statefulSet: 1]
    !snapshot.get(infra('service', 'frontend-debug')).isPresent()
  }

  def "infrastructure attributes and moniker"() {
    when:
    def rs = ManifestCacheRecords.of(ACCOUNT, json(replicaSet()), FormatOptions.DEFAULTS).get()
    def attrs = rs.infrastructure().attributes()

    then:
    rs.key() == 'kubernetes.v2:infrastructure:replicaSet:prod-k8s:web:frontend-7d9f8c6b5'
    rs.infrastructure().ttlSeconds() == -1
    attrs.keySet() as List == ['kind', 'apiVersion', 'name', 'namespace', 'fullResourceName', 'manifest', 'moniker']
    attrs.kind == 'replicaSet'
    attrs.apiVersion == 'apps/v1'
    attrs.name == 'frontend-7d9f8c6b5'
    attrs.namespace == 'web'
    attrs.fullResourceName == 'replicaSet frontend-7d9f8c6b5'
    // annotation cluster/app; sequence from deployment.kubernetes.io/revision
    attrs.moniker == [app: 'shop', cluster: 'deployment frontend', sequence: 3]
    rs.infrastructure().applicationColumn() == null
  }

  def "cached manifest: nulls dropped, annotations always present, secret data removed"() {
    given:
    def mapper = new ObjectMapper()
    def noAnnotations = json([apiVersion: 'apps/v1', kind: 'Deployment', metadata: [name: 'api', namespace: NS],
                              spec: [template: [metadata: [creationTimestamp: null, labels: [app: 'api']]]]])
    def secret = json([apiVersion: 'v1', kind: 'Secret', metadata: [name: 's', namespace: NS], type: 'Opaque', data: [k: 'dg==']])

    when:
    def manifest = ManifestCacheRecords.of(ACCOUNT, noAnnotations, FormatOptions.DEFAULTS).get().infrastructure().attributes().manifest
    def secretManifest = ManifestCacheRecords.of(ACCOUNT, secret, FormatOptions.DEFAULTS.withCachedTypes(null)).get().infrastructure().attributes().manifest

    then:
    mapper.writeValueAsString(manifest) ==
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"web","annotations":{}},' +
        '"spec":{"template":{"metadata":{"labels":{"app":"api"}}}}}'
    !secretManifest.has('data')
    secretManifest.get('type').asText() == 'Opaque'
  }

  def "an object handed over with its text: the text is the manifest when it already is the cached one"() {
    given:
    def mapper = new ObjectMapper()
    byte[] sent = json.getBytes('UTF-8')
    def object = mapper.readTree(sent)

    when:
    def records = ManifestCacheRecords.ofSent(ACCOUNT, sent, object, FormatOptions.DEFAULTS).get()
    def manifest = records.infrastructure().attributes().manifest
    def body = records.infrastructure().toBody(mapper, 0)

    then: 'the text as sent, or the manifest made of the object (which it now is)'
    asText == (manifest instanceof RawValue)
    mapper.writeValueAsString(body.get('attributes').get('manifest')) == (asText ? json : expected)
    !asText || manifest.rawValue() == json
    asText || manifest.is(object)

    and: 'the rest of the record is what the object derives either way'
    records.key() == infra('service', 's')
    records.infrastructure().attributes().moniker == [app: 'shop', cluster: 's']

    where:
    json                                                                                                                   | asText | expected
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"web","annotations":{"moniker.spinnaker.io/application":"shop","a":"x\\u003dy"}}}' | true   | null
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"web","labels":null,"annotations":{"moniker.spinnaker.io/application":"shop"}}}' | false  | '{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"web","annotations":{"moniker.spinnaker.io/application":"shop"}}}'
  }

  def "body: DefaultCacheData field order, cacheExpiry only on logical rows"() {
    given:
    def mapper = new ObjectMapper()
    def derived = ManifestCacheRecords.of(ACCOUNT, json(cronJob()), FormatOptions.DEFAULTS).get()

    when:
    def infraBody = derived.infrastructure().toBody(mapper, 1_000L)
    def appBody = derived.application().get().toBody(mapper, 1_000L)

    then:
    infraBody.fieldNames().toList() == ['id', 'ttlSeconds', 'attributes', 'relationships']
    infraBody.get('ttlSeconds').asInt() == -1
    !infraBody.get('attributes').has('cacheExpiry')
    appBody.get('ttlSeconds').asInt() == 600
    appBody.get('attributes').get('cacheExpiry').asLong() == 601_000L
    appBody.get('attributes').get('name').asText() == 'report'
    mapper.writeValueAsString(appBody.get('relationships')) ==
        '{"clusters":["kubernetes.v2:logical:clusters:prod-k8s:report:report-nightly"],' +
        '"cronJob":["kubernetes.v2:infrastructure:cronJob:prod-k8s:web:report-nightly"],"pod":[],"service":[]}'
  }

  def "ignored objects and, with onlySpinnakerManaged, unannotated objects are not cached"() {
    expect:
    ManifestCacheRecords.skipReason(json(ignoredService()), FormatOptions.DEFAULTS).get() == ManifestCacheRecords.Skip.IGNORED
    !ManifestCacheRecords.of(ACCOUNT, json(ignoredService()), FormatOptions.DEFAULTS).isPresent()
    ManifestCacheRecords.skipReason(json(statefulSet()), FormatOptions.DEFAULTS.withOnlySpinnakerManaged(true)).get() ==
        ManifestCacheRecords.Skip.NOT_SPINNAKER_MANAGED
    ManifestCacheRecords.skipReason(json(replicaSet()), FormatOptions.DEFAULTS.withOnlySpinnakerManaged(true)).isEmpty()
    ManifestCacheRecords.skipReason(json([apiVersion: 'v1', kind: 'ConfigMap', metadata: [name: 'c']]), FormatOptions.DEFAULTS).get() ==
        ManifestCacheRecords.Skip.KIND_NOT_CACHED
  }

  def "an owner that is not cached is still named; its row is simply absent"() {
    given:
    def rolloutRs = replicaSet()
    rolloutRs.metadata.ownerReferences = [[apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'frontend', uid: 'r-1']]

    when:
    def s = AccountSnapshot.build(ACCOUNT, [json(rolloutRs)], FormatOptions.DEFAULTS)

    then:
    s.get(infra('replicaSet', 'frontend-7d9f8c6b5')).get().relationships('Rollout.argoproj.io') as List ==
        [infra('Rollout.argoproj.io', 'frontend')]
    !s.get(infra('Rollout.argoproj.io', 'frontend')).isPresent()
  }

  def "cacheAllApplicationRelationships links pods to the application, but never to a cluster"() {
    when:
    def pod = ManifestCacheRecords.of(ACCOUNT, json(pod()), FormatOptions.DEFAULTS.withCacheAllApplicationRelationships(true)).get()

    then:
    pod.infrastructure().relationships('applications') as List == [APP_SHOP]
    pod.infrastructure().relationships('clusters').isEmpty()
    pod.application().get().relationships('pod') as List == [infra('pod', 'frontend-7d9f8c6b5-x2x7k')]
    !pod.cluster().isPresent()
  }

  def "event → involved object, in the event's namespace, both ways"() {
    when:
    def s = AccountSnapshot.build(ACCOUNT, [json(pod()), json(podEvent())], FormatOptions.DEFAULTS.withCachedTypes(null))
    def eventKey = infra('event', 'frontend-7d9f8c6b5-x2x7k.17f3a1')

    then:
    s.get(eventKey).get().relationships('pod') as List == [infra('pod', 'frontend-7d9f8c6b5-x2x7k')]
    s.get(infra('pod', 'frontend-7d9f8c6b5-x2x7k')).get().relationships('event') as List == [eventKey]
    s.get(eventKey).get().relationships('applications').isEmpty()
  }

  def "the index tells a writer which neighbours to rewrite, before and after a change"() {
    given:
    def index = new RelationshipIndex(ACCOUNT)
    all().each { if (ManifestCacheRecords.skipReason(it, FormatOptions.DEFAULTS).isEmpty()) index.put(it) }
    def svc = infra('service', 'frontend')
    def rs = infra('replicaSet', 'frontend-7d9f8c6b5')

    expect:
    index.indexedNeighbours(svc) == [rs, infra('ingress', 'shop')] as Set

    when: 'the service stops selecting the pods'
    def changed = service()
    changed.spec.selector = [app: 'frontend-v2']
    index.put(json(changed))

    then:
    index.indexedNeighbours(svc) == [infra('ingress', 'shop')] as Set
    !index.relationshipsOf(rs).containsKey('service')

    when: 'the replicaSet is deleted'
    index.remove(rs)

    then: 'its pod still names it (owner reference), the deployment no longer lists it'
    index.relationshipsOf(infra('pod', 'frontend-7d9f8c6b5-x2x7k')).replicaSet as List == [rs]
    !index.relationshipsOf(infra('deployment', 'frontend')).containsKey('replicaSet')
  }

  def "ingress with a resource backend gets no services (upstream fails for the whole ingress)"() {
    given:
    def ing = ingress()
    ing.spec.defaultBackend = [resource: [apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static']]

    when:
    def s = AccountSnapshot.build(ACCOUNT, [json(ing), json(service())], FormatOptions.DEFAULTS)

    then:
    s.get(infra('ingress', 'shop')).get().relationships('service').isEmpty()
  }
}
