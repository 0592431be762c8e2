package io.spinagent.plugin.cache.format

import static io.spinagent.plugin.cache.format.Manifests.MAPPER

import java.nio.charset.StandardCharsets
import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class ManifestTextSpec extends Specification {

  static String manifestText(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8)
    def object = MAPPER.readTree(bytes)
    ManifestText.of(bytes, object, ManifestCacheRecords.typeOf(object))
  }

  def "compact text of an object that is already its cached manifest is taken as it came"() {
    expect: 'the same text, escapes and the spelling of numbers included'
    manifestText(json) == json

    and: 'which reads as the manifest the tree would give'
    MAPPER.readTree(json) == ManifestCacheRecords.cachedManifest(MAPPER.readTree(json), ManifestCacheRecords.typeOf(MAPPER.readTree(json)))

    where:
    json << [
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"web","annotations":{}}}',
        // Gson escapes '=' and '<'; strings may hold anything the scan must not mistake for structure
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"a\\u003db":"x \\u003c y"}},' +
            '"data":{"k":"null } ] { [ \\" n","empty":"","spaced":"a b\\tc"},"n":[1.50,2e3,-0,true,false,[],{}]}',
        '{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"é":"日本"}}}',
    ]
  }

  def "text the cached manifest would differ from, or that is not one compact object, is not taken"() {
    expect:
    manifestText(json) == null

    where:
    why                              | json
    'a null member is dropped'       | '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{}},"spec":{"x":null}}'
    'a null in an array'             | '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{}},"spec":{"x":[null]}}'
    'annotations are added'          | '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}'
    'null annotations become {}'     | '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":null}}'
    "a Secret's data is dropped"     | '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","annotations":{}},"data":{"k":"dg=="}}'
    'whitespace between tokens'      | '{"apiVersion": "v1","kind":"Pod","metadata":{"name":"p","annotations":{}}}'
    'a trailing newline'             | '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{}}}\n'
    'leading whitespace'             | ' {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{}}}'
    'a second value after the first' | '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{}}}{"kind":"Pod"}'
    'a byte order mark'              | '\uFEFF{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","annotations":{}}}'
  }
}
