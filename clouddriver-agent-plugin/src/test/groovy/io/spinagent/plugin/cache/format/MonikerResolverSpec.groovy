package io.spinagent.plugin.cache.format

import static io.spinagent.plugin.cache.format.Manifests.json

import spock.lang.Specification
import spock.lang.Tag
import spock.lang.Unroll

@Tag('one-class')
class MonikerResolverSpec extends Specification {

  // frigga 0.24.0 Names.parseName, plus KubernetesResourceAwareNames for "system:" names
  @Unroll
  def "name '#name' parses to app=#app cluster=#cluster sequence=#sequence"() {
    when:
    def parsed = MonikerResolver.parseName(name)

    then:
    parsed.app() == app
    parsed.cluster() == cluster
    parsed.sequence() == sequence

    where:
    name                                     || app        | cluster                          | sequence
    'frontend'                               || 'frontend' | 'frontend'                       | null
    'shop-api-v012'                          || 'shop'     | 'shop-api'                       | 12
    'shop-api-canary-v001234'                || 'shop'     | 'shop-api-canary'                | 1234
    'shop-v1234567'                          || 'shop'     | 'shop-v1234567'                  | null
    'frontend-7d9f8c6b5-x2x7k'               || 'frontend' | 'frontend-7d9f8c6b5-x2x7k'       | null
    'report-nightly-28512345-5jq8n'          || 'report'   | 'report-nightly-28512345-5jq8n'  | null
    'my.app_x-stack-detail-with-more-v003'   || 'my.app_x' | 'my.app_x-stack-detail-with-more' | 3
    'v003'                                   || 'v003'     | 'v003'                           | null
    '-leading'                               || null       | null                             | null
    'system:coredns'                         || 'system'   | 'system:coredns'                 | null
    'system:certificates.k8s.io:nodeclient-v003' || 'system' | 'system:certificates.k8s.io:nodeclient' | 3
    ''                                       || null       | null                             | null
    null                                     || null       | null                             | null
  }

  def "our parser agrees with frigga itself on a corpus of names"() {
    given:
    def frigga = Class.forName('com.netflix.frigga.Names')
    def names = ['frontend', 'shop-api-v012', 'a-b-c-d-e-v999', 'x--y', 'x-', 'shop-v12', 'shop-v123456', 'a~b-c',
                 'app-stack-de~tail^x-v100', 'nginx-deployment-5c689d88bb-abcde', 'kube-dns', 'coredns-5d78c9869d',
                 'UPPER-Case-v001', '.hidden', 'a.b.c', 'x-y-v000', 'redis-headless']

    expect:
    names.every { n ->
      def ours = MonikerResolver.parseName(n)
      def theirs = frigga.parseName(n)
      ours.app() == theirs.app && ours.cluster() == theirs.cluster && ours.sequence() == theirs.sequence &&
          ours.stack() == theirs.stack && ours.detail() == theirs.detail
    }
  }

  // KubernetesManifestAnnotater.getMoniker
  def "annotations win over the name; stack and detail only come from annotations"() {
    given:
    def rs = json([apiVersion: 'apps/v1', kind: 'ReplicaSet',
                   metadata  : [name: 'shop-api-prod-v007', annotations: [
                       'moniker.spinnaker.io/application': 'checkout',
                       'moniker.spinnaker.io/cluster'    : 'replicaSet shop-api-prod',
                       'moniker.spinnaker.io/stack'      : 'prod',
                       'moniker.spinnaker.io/detail'     : 'blue',
                       'moniker.spinnaker.io/sequence'   : '5',
                       'deployment.kubernetes.io/revision': '9']]])
    def plain = json([apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: [name: 'shop-api-prod-v007']])

    expect:
    MonikerResolver.resolve('replicaSet', rs).toMap() ==
        [app: 'checkout', cluster: 'replicaSet shop-api-prod', detail: 'blue', stack: 'prod', sequence: 5]
    // name parse gives stack 'api' and detail 'prod', but the Kubernetes namer drops them
    MonikerResolver.resolve('replicaSet', plain).toMap() == [app: 'shop', cluster: 'shop-api-prod', sequence: 7]
  }

  def "replicaSet sequence falls back to deployment.kubernetes.io/revision, other kinds do not"() {
    given:
    def annotated = { String kind -> json([apiVersion: 'apps/v1', kind: kind, metadata: [name: 'frontend-7d9f8c6b5', annotations: ['deployment.kubernetes.io/revision': '3']]]) }

    expect:
    MonikerResolver.resolve('replicaSet', annotated('ReplicaSet')).sequence() == 3
    MonikerResolver.resolve('deployment', annotated('Deployment')).sequence() == null
  }

  def "a sequence annotation that is not an integer gives no sequence, without fallback"() {
    given:
    def rs = json([apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: [name: 'web-v004', annotations: [
        'moniker.spinnaker.io/sequence': 'seven', 'deployment.kubernetes.io/revision': '3']]])

    expect:
    MonikerResolver.resolve('replicaSet', rs).sequence() == null
  }

  def "a quoted annotation value (legacy JSON-encoded write) is decoded"() {
    given:
    def svc = json([apiVersion: 'v1', kind: 'Service', metadata: [name: 'x', annotations: ['moniker.spinnaker.io/application': '"shop"']]])

    expect:
    MonikerResolver.resolve('service', svc).app() == 'shop'
  }

  // KubernetesManifestAnnotater.getCachingProperties: the ignore annotation is read as JSON Boolean
  @Unroll
  def "caching.spinnaker.io/ignore '#value' ignores: #ignored"() {
    expect:
    MonikerResolver.isIgnored(json([metadata: [name: 'x', annotations: ['caching.spinnaker.io/ignore': value]]])) == ignored

    where:
    value    || ignored
    'true'   || true
    '"true"' || true
    'false'  || false
    'yes'    || false
  }
}
