package io.spinagent.plugin.cache.sql

import static io.spinagent.plugin.cache.format.Manifests.ACCOUNT

import com.fasterxml.jackson.databind.ObjectMapper
import com.google.protobuf.ByteString
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.cache.format.FormatOptions
import io.spinagent.plugin.cache.format.Manifests
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.ResyncMarker
import spock.lang.Specification
import spock.lang.Tag

/** What each change yields on its own: records and body, skipped, or refused with a reason. */
@Tag('one-class')
class DerivationSpec extends Specification {

  Derivation derivation = new Derivation(new CachedKinds(['Pod', 'Service', 'Secret'], [], false), new ObjectMapper(), Runnable::run)

  static SinkEntry change(String kind, String json, ChangeType type = ChangeType.CHANGE_TYPE_UPSERT) {
    new SinkEntry.Change(ObjectChange.newBuilder().setSequence(7)
        .setKind(Kind.newBuilder().setVersion('v1').setKind(kind))
        .setNamespace(Manifests.NS).setName('x').setResourceVersion('1').setType(type)
        .setObjectJson(ByteString.copyFromUtf8(json)).build())
  }

  Derivation.Derived derive(SinkEntry entry, FormatOptions options = FormatOptions.DEFAULTS.withCachedTypes(null)) {
    derivation.derive(new Derivation.Item(ACCOUNT, options, entry), 0)
  }

  def "an object yields its records, its body and its hash, and what the relationship index keeps"() {
    when:
    def derived = derive(change('Pod', Manifests.MAPPER.writeValueAsString(Manifests.pod())))

    then:
    derived.refusal() == null
    !derived.skipped()
    derived.records().key() == Manifests.infra('pod', 'frontend-7d9f8c6b5-x2x7k')
    Manifests.MAPPER.readValue(derived.body(), Map).relationships == [pod: [], service: []]
    derived.bodyHash() ==~ /[0-9a-f]{64}/
    derived.indexEntry() != null
  }

  def "unreadable JSON is refused with where it broke, never with what it said"() {
    when:
    def derived = derive(change(kind, json))

    then:
    derived.refusal().reason() == Derivation.Reason.UNREADABLE_JSON
    derived.refusal().detail().startsWith('unreadable object JSON')
    !derived.refusal().detail().contains('hunter2')

    where:
    kind     | json
    'Pod'    | '{"apiVersion":"v1","kind":"Pod",hunter2'
    'Secret' | '{"apiVersion":"v1","kind":"Secret","data":{"password":hunter2}}'
  }

  def "an object without kind, apiVersion or name is refused as malformed; one Spinnaker would not cache is skipped"() {
    expect:
    derive(change('Pod', '{"kind":"Pod","metadata":{"name":"x"}}')).refusal().reason() == Derivation.Reason.MALFORMED
    derive(change('Service', Manifests.MAPPER.writeValueAsString(Manifests.ignoredService()))).skipped()
    derive(change('Service', Manifests.MAPPER.writeValueAsString(Manifests.headlessService())),
        FormatOptions.DEFAULTS.withCachedTypes(null).withOnlySpinnakerManaged(true)).skipped()
    !derive(change('Service', Manifests.MAPPER.writeValueAsString(Manifests.headlessService()))).skipped()
  }

  def "deletes, markers and kinds not cached have nothing to derive"() {
    expect:
    derive(change('Pod', '', ChangeType.CHANGE_TYPE_DELETE)) == null
    derive(change('ConfigMap', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}')) == null
    derive(new SinkEntry.Resync(ResyncMarker.getDefaultInstance())) == null
  }

  def "the cache format tells rows derived under different account options apart"() {
    expect:
    [FormatOptions.DEFAULTS,
     FormatOptions.DEFAULTS.withOnlySpinnakerManaged(true),
     FormatOptions.DEFAULTS.withCacheAllApplicationRelationships(true)].collect { Derivation.formatOf(it) }.unique().size() == 3
    Derivation.formatOf(FormatOptions.DEFAULTS) == Derivation.formatOf(FormatOptions.DEFAULTS.withCachedTypes(null))
  }
}
