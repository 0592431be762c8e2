package io.spinagent.testkit.kubernetes

import io.kubernetes.client.informer.ResourceEventHandler
import io.kubernetes.client.informer.SharedIndexInformer
import io.kubernetes.client.informer.SharedInformerFactory
import io.kubernetes.client.openapi.ApiClient
import io.kubernetes.client.util.generic.GenericKubernetesApi
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject
import io.kubernetes.client.util.generic.dynamic.Dynamics

import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList

/**
 * The agent's way of watching: a SharedIndexInformer over a dynamic (schema-less) type through
 * GenericKubernetesApi, here on a custom resource defined at run time.
 */
class InformerSpec extends ApiServerSpecification {

  static final String CRD = '''
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: gadgets.example.com
    spec:
      group: example.com
      scope: Namespaced
      names: {plural: gadgets, singular: gadget, kind: Gadget}
      versions:
      - name: v1
        served: true
        storage: true
        schema:
          openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    '''.stripIndent()

  SharedInformerFactory factory

  def setupSpec() {
    server.createObject(CRD)
  }

  def cleanup() {
    factory?.stopAllRegisteredInformers()
  }

  static String gadget(String name, int size) {
    """{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"$name","namespace":"default"},"spec":{"size":$size}}"""
  }

  private Map startInformer(ApiClient client) {
    // DynamicKubernetesApi, not a bare GenericKubernetesApi: it registers the Gson adapters that give
    // DynamicKubernetesListObject its raw JSON (without them a list's metadata reads as null).
    def api = new DynamicKubernetesApi('example.com', 'v1', 'gadgets', client)
    factory = new SharedInformerFactory(client)
    SharedIndexInformer<DynamicKubernetesObject> informer = factory.sharedIndexInformerFor(
        (GenericKubernetesApi) api, DynamicKubernetesObject, 0)
    def events = new CopyOnWriteArrayList<String>()
    informer.addEventHandler(new ResourceEventHandler<DynamicKubernetesObject>() {
      void onAdd(DynamicKubernetesObject obj) { events << "ADDED ${obj.metadata.name}".toString() }

      void onUpdate(DynamicKubernetesObject before, DynamicKubernetesObject after) {
        events << "MODIFIED ${after.metadata.name} ${after.raw.getAsJsonObject('spec').get('size').asInt}".toString()
      }

      void onDelete(DynamicKubernetesObject obj, boolean unknownFinalState) { events << "DELETED ${obj.metadata.name}".toString() }
    })
    factory.startAllRegisteredInformers()
    assert eventually { informer.hasSynced() }
    [informer: informer, events: events, api: api]
  }

  private Set<String> cached(SharedIndexInformer<DynamicKubernetesObject> informer) {
    informer.indexer.list().collect { it.metadata.name + ':' + it.raw.getAsJsonObject('spec').get('size').asInt } as Set
  }

  private Set<String> stored() {
    server.store().list(server.registry().find('example.com', 'v1', 'gadgets').get(), null, Selectors.EVERYTHING,
        ResourceStore.ListOptions.ALL).items().collect {
      def object = parse(it.json())
      object.metadata.name + ':' + object.spec.size
    } as Set
  }

  def "an informer on a dynamic type sees ADDED, MODIFIED and DELETED"() {
    given:
    server.createObject(gadget('pre-existing', 1))
    def started = startInformer(client())
    def events = started.events as List<String>
    GenericKubernetesApi api = started.api

    when:
    def created = api.create(Dynamics.newFromJson(gadget('g1', 1))).throwsApiException().object
    created.raw.getAsJsonObject('spec').addProperty('size', 2)
    api.update(created).throwsApiException()
    api.delete('default', 'g1').throwsApiException()

    then:
    eventually { events.contains('DELETED g1') }
    events == ['ADDED pre-existing', 'ADDED g1', 'MODIFIED g1 2', 'DELETED g1']
    cached(started.informer) == ['pre-existing:1'] as Set

    cleanup:
    server.deleteObject('example.com/v1', 'Gadget', 'default', 'pre-existing')
  }

  def "when its watch resumes from a compacted resourceVersion, the informer gets 410, relists and converges"() {
    given:
    server.createObject(gadget('keep', 1))
    server.createObject(gadget('drop', 1))
    def started = startInformer(client())
    assert eventually { cached(started.informer) == ['keep:1', 'drop:1'] as Set }
    server.requestLog().clear()

    when: "the open watch ends, and before the informer's next watch arrives the store moves on and is compacted"
    server.faults().latency(Duration.ofMillis(700))
    server.closeAllWatches()
    server.mergePatchObject('example.com/v1', 'Gadget', 'default', 'keep', '{"spec":{"size":5}}')
    server.deleteObject('example.com/v1', 'Gadget', 'default', 'drop')
    server.createObject(gadget('new', 3))
    server.compact()

    then: "its re-watch is answered with 410, it lists again and ends up with exactly what is stored"
    eventually(15_000) { cached(started.informer) == ['keep:5', 'new:3'] as Set }
    def log = server.requestLog().entries().findAll { it.uri().contains('/gadgets') }
    def expired = log.findIndexOf { it.watchExpired() }
    expired >= 0
    log.drop(expired + 1).any { !it.uri().contains('watch=true') && it.status() == 200 }

    when: "and it keeps watching from there"
    server.faults().reset()
    server.createObject(gadget('later', 4))

    then:
    eventually(15_000) { cached(started.informer) == ['keep:5', 'new:3', 'later:4'] as Set }
    cached(started.informer) == stored()

    cleanup:
    server.faults().reset()
    ['keep', 'new', 'later'].each { server.deleteObject('example.com/v1', 'Gadget', 'default', it) }
  }

  def "an informer keeps working across an API server restart"() {
    given:
    def restartable = startServer(KubernetesApiServer.builder())
    restartable.createObject(CRD)
    restartable.createObject(gadget('before', 1))
    def client = client(restartable)
    // DynamicKubernetesApi, not a bare GenericKubernetesApi: it registers the Gson adapters that give
    // DynamicKubernetesListObject its raw JSON (without them a list's metadata reads as null).
    def api = new DynamicKubernetesApi('example.com', 'v1', 'gadgets', client)
    factory = new SharedInformerFactory(client)
    def informer = factory.sharedIndexInformerFor((GenericKubernetesApi) api, DynamicKubernetesObject, 0)
    factory.startAllRegisteredInformers()
    assert eventually { informer.hasSynced() }

    when:
    restartable.restart()
    restartable.createObject(gadget('after', 2))

    then:
    eventually(15_000) { informer.indexer.list()*.metadata*.name.sort() == ['after', 'before'] }
  }
}
