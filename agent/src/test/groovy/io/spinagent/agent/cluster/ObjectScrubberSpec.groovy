package io.spinagent.agent.cluster

import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import java.nio.charset.StandardCharsets
import spock.lang.Specification

class ObjectScrubberSpec extends Specification {

  static Map scrub(boolean secret, Map object) {
    def out = new ObjectScrubber(secret).scrub(JsonOutput.toJson(object).getBytes(StandardCharsets.UTF_8))
    new JsonSlurper().parse(out) as Map
  }

  def "managedFields are removed from every object, everything else is kept as it was"() {
    given:
    def object = [apiVersion: 'apps/v1', kind: 'Deployment',
                  metadata: [name: 'web', labels: [a: 'b'], managedFields: [[manager: 'kubectl']],
                             annotations: [(ObjectScrubber.LAST_APPLIED): '{"x":1}']],
                  spec: [replicas: 2, template: [metadata: [managedFields: 'not metadata of the object']],
                         list: [1, 2.5, true, null, [nested: 'x']]],
                  data: [kept: 'for non-secrets']]

    expect:
    scrub(false, object) == [apiVersion: 'apps/v1', kind: 'Deployment',
                             metadata: [name: 'web', labels: [a: 'b'], annotations: [(ObjectScrubber.LAST_APPLIED): '{"x":1}']],
                             spec: [replicas: 2, template: [metadata: [managedFields: 'not metadata of the object']],
                                    list: [1, 2.5, true, null, [nested: 'x']]],
                             data: [kept: 'for non-secrets']]
  }

  def "for Secrets, data, stringData and the last-applied annotation are removed"() {
    given:
    def secret = [apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
                  metadata: [name: 's', annotations: [(ObjectScrubber.LAST_APPLIED): '{"data":{"p":"aHVudGVyMg=="}}', keep: 'me'],
                             managedFields: [[manager: 'x']]],
                  data: [p: 'aHVudGVyMg=='], stringData: [q: 'hunter3']]

    when:
    def scrubbed = scrub(true, secret)

    then:
    scrubbed == [apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: [name: 's', annotations: [keep: 'me']]]
  }

  def "numbers are written as the API server wrote them"() {
    given:
    def json = '{"spec":{"a":1.50,"b":1e3,"c":-0.000001,"d":12345678901234567890123,"e":7}}'

    expect:
    new String(new ObjectScrubber(false).scrub(json.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8) == json
  }
}
