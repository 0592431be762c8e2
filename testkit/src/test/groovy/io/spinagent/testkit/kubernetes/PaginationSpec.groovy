package io.spinagent.testkit.kubernetes

import io.kubernetes.client.openapi.ApiException
import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.openapi.models.V1ConfigMap
import io.kubernetes.client.openapi.models.V1Namespace
import io.kubernetes.client.openapi.models.V1ObjectMeta
import spock.lang.Shared

class PaginationSpec extends ApiServerSpecification {

  @Shared CoreV1Api core

  def setupSpec() {
    core = new CoreV1Api(client())
  }

  private void namespaceWith(String namespace, int count) {
    core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(namespace))).execute()
    (1..count).each { i ->
      core.createNamespacedConfigMap(namespace, new V1ConfigMap().metadata(
          new V1ObjectMeta().name(String.format('cm-%02d', i)).labels([parity: i % 2 == 0 ? 'even' : 'odd']))).execute()
    }
  }

  def "limit and continue page through a consistent snapshot"() {
    given:
    namespaceWith('paging', 7)

    when:
    def first = core.listNamespacedConfigMap('paging').limit(3).execute()
    // Changes after the first page must not show up in the later pages of this listing.
    core.deleteNamespacedConfigMap('cm-05', 'paging').execute()
    core.createNamespacedConfigMap('paging', new V1ConfigMap().metadata(new V1ObjectMeta().name('cm-00a'))).execute()
    core.createNamespacedConfigMap('paging', new V1ConfigMap().metadata(new V1ObjectMeta().name('cm-99'))).execute()
    def second = core.listNamespacedConfigMap('paging').limit(3)._continue(first.metadata.continue).execute()
    def third = core.listNamespacedConfigMap('paging').limit(3)._continue(second.metadata.continue).execute()

    then:
    first.items*.metadata*.name == ['cm-01', 'cm-02', 'cm-03']
    first.metadata.remainingItemCount == 4
    first.metadata.continue != null
    second.items*.metadata*.name == ['cm-04', 'cm-05', 'cm-06']
    second.metadata.remainingItemCount == 1
    third.items*.metadata*.name == ['cm-07']
    third.metadata.continue == null
    [second, third].every { it.metadata.resourceVersion == first.metadata.resourceVersion }

    and: "a fresh list sees the changes"
    core.listNamespacedConfigMap('paging').execute().items*.metadata*.name ==
        ['cm-00a', 'cm-01', 'cm-02', 'cm-03', 'cm-04', 'cm-06', 'cm-07', 'cm-99']
  }

  def "pages across namespaces follow namespace then name order; selectors omit remainingItemCount"() {
    given:
    namespaceWith('paging-a', 2)
    namespaceWith('paging-b', 2)
    def names = { list -> list.items.collect { it.metadata.namespace + '/' + it.metadata.name } }

    when:
    def all = []
    String token = null
    def pages = 0
    while (true) {
      def page = core.listConfigMapForAllNamespaces().labelSelector('parity=odd').limit(1)._continue(token).execute()
      all.addAll(names(page).findAll { it.startsWith('paging-') })
      pages++
      assert page.metadata.remainingItemCount == null
      token = page.metadata.continue
      if (token == null) {
        break
      }
    }

    then:
    all == ['paging-a/cm-01', 'paging-b/cm-01']
    pages >= 2
  }

  def "a continue token from before a compaction is 410 Expired"() {
    given:
    namespaceWith('paging-expired', 3)
    def first = core.listNamespacedConfigMap('paging-expired').limit(1).execute()
    core.createNamespacedConfigMap('paging-expired', new V1ConfigMap().metadata(new V1ObjectMeta().name('later'))).execute()
    server.compact()

    when:
    core.listNamespacedConfigMap('paging-expired').limit(1)._continue(first.metadata.continue).execute()

    then:
    ApiException e = thrown()
    e.code == 410
    parse(e.responseBody).reason == 'Expired'

    and: "a new list works"
    core.listNamespacedConfigMap('paging-expired').execute().items.size() == 4
  }

  def "a continue token is checked: garbage is 400, a token for another query is 400"() {
    given:
    namespaceWith('paging-tokens', 2)
    def first = core.listNamespacedConfigMap('paging-tokens').limit(1).execute()

    when:
    core.listNamespacedConfigMap('paging-tokens').limit(1)._continue('not-a-token').execute()

    then:
    ApiException e = thrown()
    e.code == 400

    when:
    core.listNamespacedConfigMap('paging-tokens').labelSelector('parity=odd').limit(1)._continue(first.metadata.continue).execute()

    then:
    ApiException e2 = thrown()
    e2.code == 400
  }

  def "resourceVersionMatch=Exact lists a past state; a future resourceVersion is refused"() {
    given:
    namespaceWith('paging-exact', 2)
    def before = core.listNamespacedConfigMap('paging-exact').execute()
    core.deleteNamespacedConfigMap('cm-01', 'paging-exact').execute()
    core.createNamespacedConfigMap('paging-exact', new V1ConfigMap().metadata(new V1ObjectMeta().name('cm-03'))).execute()

    when:
    def past = core.listNamespacedConfigMap('paging-exact').resourceVersion(before.metadata.resourceVersion)
        .resourceVersionMatch('Exact').execute()
    def notOlder = core.listNamespacedConfigMap('paging-exact').resourceVersion(before.metadata.resourceVersion)
        .resourceVersionMatch('NotOlderThan').execute()

    then:
    past.items*.metadata*.name == ['cm-01', 'cm-02']
    past.metadata.resourceVersion == before.metadata.resourceVersion
    notOlder.items*.metadata*.name == ['cm-02', 'cm-03']

    when:
    core.listNamespacedConfigMap('paging-exact').resourceVersion(String.valueOf(server.resourceVersion() + 100))
        .resourceVersionMatch('NotOlderThan').execute()

    then:
    ApiException e = thrown()
    e.code == 504
  }
}
