package io.spinagent.agent.cluster

/** Secrets are watched as metadata only and reach the outbox without their payload. */
class SecretScrubbingSpec extends ClusterSpecification {

  static String secret(String name, String value) {
    def encoded = Base64.encoder.encodeToString(value.bytes)
    """{"apiVersion":"v1","kind":"Secret","type":"Opaque","metadata":{"name":"$name","namespace":"default",
      "labels":{"team":"a"},
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":
        "{\\"apiVersion\\":\\"v1\\",\\"data\\":{\\"password\\":\\"$encoded\\"},\\"kind\\":\\"Secret\\"}"}},
      "data":{"password":"$encoded"}}"""
  }

  def "Secrets are listed and watched with the metadata-only Accept header and sent without data"() {
    given:
    def api = server()
    api.createObject(secret('listed', 'value-listed-1234'))
    def manager = watch([account('prod', kubeconfig(api), kinds: ['Secret'])])

    expect:
    eventually { manager.allSynced() }
    names('prod', 'Secret') == ['default/listed'] as Set

    when:
    api.createObject(secret('watched', 'value-watched-5678'))

    then:
    eventually { names('prod', 'Secret').contains('default/watched') }
    def sent = state('prod', 'Secret')
    sent.values().every { it.apiVersion == 'v1' && it.kind == 'Secret' && it.data == null && it.stringData == null }
    sent.values().every { it.metadata.annotations == null || !it.metadata.annotations.containsKey('kubectl.kubernetes.io/last-applied-configuration') }
    sent['Secret default/watched'].metadata.labels == [team: 'a']
    sent['Secret default/watched'].metadata.uid

    and: "the raw bytes that went out do not hold the values in any form"
    def bytes = entries('prod').collect { it.hasProperty('change') ? it.change().objectJson.toStringUtf8() : '' }.join()
    ['value-listed-1234', 'value-watched-5678'].every { v ->
      !bytes.contains(v) && !bytes.contains(Base64.encoder.encodeToString(v.bytes))
    }

    and: "the server was asked for metadata only"
    def secretRequests = api.requestLog().entries().findAll { it.uri().contains('/secrets') }
    !secretRequests.isEmpty()
    secretRequests.every { it.accept().contains('as=PartialObjectMetadata') }
  }
}
