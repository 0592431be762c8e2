package io.spinagent.testkit.kubernetes

import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.openapi.models.V1ObjectMeta
import io.kubernetes.client.openapi.models.V1Secret
import spock.lang.Shared

/**
 * Metadata-only responses: how the agent lists and watches Secrets without their data ever reaching
 * its heap. Requests go through the official client's HTTP stack with the Accept header client-go's
 * metadata client sends.
 */
class MetadataOnlySpec extends ApiServerSpecification {

  static final String LIST_ACCEPT = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,' +
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json'
  static final String OBJECT_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json'

  @Shared CoreV1Api core

  def setupSpec() {
    core = new CoreV1Api(client())
    ['s1', 's2'].each {
      core.createNamespacedSecret('default', new V1Secret().metadata(new V1ObjectMeta().name(it).labels([kind: 'token'])
          .annotations([note: 'kept'])).type('Opaque').data([password: 'hunter2'.bytes]).stringData(null)).execute()
    }
  }

  def "a metadata-only list of Secrets carries metadata and no data"() {
    when:
    def response = http(core.apiClient, 'GET', '/api/v1/namespaces/default/secrets?labelSelector=kind%3Dtoken',
        null, [Accept: LIST_ACCEPT])

    then:
    response.status == 200
    response.json.kind == 'PartialObjectMetadataList'
    response.json.apiVersion == 'meta.k8s.io/v1'
    response.json.metadata.resourceVersion == String.valueOf(server.resourceVersion())
    response.json.items*.metadata*.name == ['s1', 's2']
    response.json.items.every { it.kind == 'PartialObjectMetadata' && it.apiVersion == 'meta.k8s.io/v1' }
    response.json.items.every { it.keySet() == ['apiVersion', 'kind', 'metadata'] as Set }
    response.json.items[0].metadata.labels == [kind: 'token']
    response.json.items[0].metadata.annotations == [note: 'kept']
    response.json.items[0].metadata.uid
    !response.text.contains(Base64.encoder.encodeToString('hunter2'.bytes))

    and: "without the Accept parameters the data is there"
    core.readNamespacedSecret('s1', 'default').execute().data.password == 'hunter2'.bytes
  }

  def "a single object can be read as PartialObjectMetadata"() {
    when:
    def response = http(core.apiClient, 'GET', '/api/v1/namespaces/default/secrets/s2', null, [Accept: OBJECT_ACCEPT])

    then:
    response.json.kind == 'PartialObjectMetadata'
    response.json.metadata.name == 's2'
    response.json.data == null
    response.json.type == null
  }

  def "a metadata-only watch sends PartialObjectMetadata objects"() {
    given:
    def from = server.resourceVersion()

    when:
    core.createNamespacedSecret('default', new V1Secret().metadata(new V1ObjectMeta().name('s3'))
        .data([key: 'secret'.bytes])).execute()
    def response = http(core.apiClient, 'GET',
        "/api/v1/namespaces/default/secrets?watch=true&resourceVersion=$from&timeoutSeconds=1", null,
        [Accept: OBJECT_ACCEPT])
    def events = response.text.readLines().collect { parse(it) }

    then:
    events*.type == ['ADDED']
    events[0].object.kind == 'PartialObjectMetadata'
    events[0].object.metadata.name == 's3'
    events[0].object.data == null
    !response.text.contains(Base64.encoder.encodeToString('secret'.bytes))
  }

  def "kubectl's table request gets a meta.k8s.io Table"() {
    when:
    def response = http(core.apiClient, 'GET', '/api/v1/namespaces/default/secrets', null,
        [Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json'])

    then:
    response.json.kind == 'Table'
    response.json.columnDefinitions*.name == ['Name', 'Type', 'Data', 'Age']
    response.json.rows.collect { it.cells[0] }.containsAll(['s1', 's2'])
    response.json.rows.every { it.object.kind == 'PartialObjectMetadata' }
  }
}
