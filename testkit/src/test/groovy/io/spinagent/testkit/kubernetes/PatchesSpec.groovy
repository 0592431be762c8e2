package io.spinagent.testkit.kubernetes

import groovy.json.JsonOutput
import spock.lang.Specification

/** The patch algorithms on their own, where a cluster would be overkill. */
class PatchesSpec extends Specification {

  static Map smp(Map current, Map patch) {
    def result = StrategicMergePatch.apply(Json.parseObject(JsonOutput.toJson(current)), Json.parseObject(JsonOutput.toJson(patch)))
    ApiServerSpecification.parse(Json.write(result))
  }

  static Map merge(Map current, Map patch) {
    ApiServerSpecification.parse(Json.write(Patches.mergePatch(Json.parseObject(JsonOutput.toJson(current)),
        Json.parseObject(JsonOutput.toJson(patch)))))
  }

  def "merge patch follows RFC 7386"() {
    expect:
    merge([a: 'b', c: [d: 'e', f: 'g']], [a: 'z', c: [f: null]]) == [a: 'z', c: [d: 'e']]
    merge([a: [1, 2]], [a: [3]]) == [a: [3]]
    merge([a: 'b'], [a: [b: 'c']]) == [a: [b: 'c']]
  }

  def "strategic merge: containers merge by name, ports by containerPort, service ports by port"() {
    expect:
    smp([containers: [[name: 'a', image: '1', ports: [[containerPort: 80, name: 'http']]], [name: 'b', image: '1']]],
        [containers: [[name: 'a', ports: [[containerPort: 80, protocol: 'TCP'], [containerPort: 81]]]]]) ==
        [containers: [[name: 'a', image: '1', ports: [[containerPort: 80, name: 'http', protocol: 'TCP'], [containerPort: 81]]],
                      [name: 'b', image: '1']]]
    smp([ports: [[port: 80, targetPort: 8080]]], [ports: [[port: 80, targetPort: 9090], [port: 443]]]) ==
        [ports: [[port: 80, targetPort: 9090], [port: 443]]]
  }

  def "strategic merge directives: \$patch replace/delete, \$setElementOrder, \$deleteFromPrimitiveList, \$retainKeys"() {
    expect:
    smp([spec: [a: 1, b: 2]], [spec: ['$patch': 'replace', c: 3]]) == [spec: [c: 3]]
    smp([spec: [a: 1], other: 1], [spec: ['$patch': 'delete']]) == [other: 1]
    smp([env: [[name: 'A', value: '1'], [name: 'B', value: '2']]],
        ['$setElementOrder/env': [[name: 'B'], [name: 'A']], env: [[name: 'A', value: '3']]]) ==
        [env: [[name: 'B', value: '2'], [name: 'A', value: '3']]]
    smp([metadata: [finalizers: ['a', 'b']]], [metadata: ['$deleteFromPrimitiveList/finalizers': ['a']]]) ==
        [metadata: [finalizers: ['b']]]
    smp([strategy: [type: 'RollingUpdate', rollingUpdate: [maxSurge: 1]]],
        [strategy: ['$retainKeys': ['type'], type: 'Recreate']]) == [strategy: [type: 'Recreate']]
    smp([volumes: [[name: 'a', emptyDir: [:]]]], [volumes: [['$patch': 'replace'], [name: 'b', emptyDir: [:]]]]) ==
        [volumes: [[name: 'b', emptyDir: [:]]]]
  }

  def "lists without a patch strategy are replaced; finalizers are merged"() {
    expect:
    smp([args: ['a', 'b'], tolerations: [[key: 'x']]], [args: ['c'], tolerations: [[key: 'y']]]) ==
        [args: ['c'], tolerations: [[key: 'y']]]
    smp([metadata: [finalizers: ['a']]], [metadata: [finalizers: ['b']]]) == [metadata: [finalizers: ['a', 'b']]]
  }

  def "JSON patch: add to arrays, move, and pointer escapes"() {
    given:
    def target = Json.parseObject('{"a":{"b/c":[1,2]},"m":{"~k":1}}')

    when:
    def result = JsonPatchDocument.apply(Json.parse('''[
        {"op":"add","path":"/a/b~1c/1","value":9},
        {"op":"add","path":"/a/b~1c/-","value":3},
        {"op":"move","from":"/m/~0k","path":"/n"}]'''.bytes), target)

    then:
    Json.write(result) == '{"a":{"b/c":[1,9,2,3]},"m":{},"n":1}'
    Json.write(target) == '{"a":{"b/c":[1,2]},"m":{"~k":1}}'
  }
}
