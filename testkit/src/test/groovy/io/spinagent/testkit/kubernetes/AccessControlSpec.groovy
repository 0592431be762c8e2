package io.spinagent.testkit.kubernetes

import io.kubernetes.client.openapi.ApiException
import io.kubernetes.client.openapi.apis.AuthorizationV1Api
import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.openapi.models.V1ConfigMap
import io.kubernetes.client.openapi.models.V1ObjectMeta
import io.kubernetes.client.openapi.models.V1ResourceAttributes
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReview
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReviewSpec

class AccessControlSpec extends ApiServerSpecification {

  def cleanup() {
    server.accessControl().defaultRule(null)
    ['reader-token', 'admin-token'].each { server.accessControl().revokeToken(it) }
  }

  static V1SelfSubjectAccessReview review(String verb, String group, String resource, String namespace = null) {
    new V1SelfSubjectAccessReview().spec(new V1SelfSubjectAccessReviewSpec().resourceAttributes(
        new V1ResourceAttributes().verb(verb).group(group).resource(resource).namespace(namespace)))
  }

  def "by default every SelfSubjectAccessReview is allowed"() {
    when:
    def answer = new AuthorizationV1Api(client()).createSelfSubjectAccessReview(review('watch', '', 'secrets')).execute()

    then:
    answer.status.allowed
    answer.spec.resourceAttributes.resource == 'secrets'
  }

  def "a rule answers reviews and authorizes the requests themselves"() {
    given: "no secrets, and nothing at all in kube-system"
    server.accessControl().defaultRule({ AccessControl.AccessRequest r ->
      r.resource() != 'secrets' && r.namespace() != 'kube-system'
    } as AccessControl.AccessRule)
    def client = client()
    def authz = new AuthorizationV1Api(client)
    def core = new CoreV1Api(client)

    expect:
    !authz.createSelfSubjectAccessReview(review('list', '', 'secrets', 'default')).execute().status.allowed
    authz.createSelfSubjectAccessReview(review('list', '', 'configmaps', 'default')).execute().status.allowed
    !authz.createSelfSubjectAccessReview(review('list', '', 'configmaps', 'kube-system')).execute().status.allowed
    core.listNamespacedConfigMap('default').execute() != null

    when:
    core.listNamespacedSecret('default').execute()

    then:
    ApiException e = thrown()
    e.code == 403
    def status = parse(e.responseBody)
    status.reason == 'Forbidden'
    status.message == 'secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "default"'
  }

  def "a review of * is allowed only when the rule allows every served resource it stands for"() {
    given:
    def authz = new AuthorizationV1Api(client())

    expect: "by default everything is allowed"
    authz.createSelfSubjectAccessReview(review('watch', '*', '*')).execute().status.allowed

    when: "secrets are denied"
    server.accessControl().defaultRule({ AccessControl.AccessRequest r -> r.resource() != 'secrets' } as AccessControl.AccessRule)

    then:
    !authz.createSelfSubjectAccessReview(review('list', '*', '*')).execute().status.allowed
    !authz.createSelfSubjectAccessReview(review('list', '', '*')).execute().status.allowed
    authz.createSelfSubjectAccessReview(review('list', 'apps', '*')).execute().status.allowed
    authz.createSelfSubjectAccessReview(review('*', 'apps', 'deployments')).execute().status.allowed
    !authz.createSelfSubjectAccessReview(review('*', '', 'secrets')).execute().status.allowed
  }

  def "with tokens registered, requests without a valid token get 401 and each token has its own rule"() {
    given:
    server.accessControl()
        .acceptToken('admin-token')
        .acceptToken('reader-token', 'reader', { AccessControl.AccessRequest r -> r.verb() in ['get', 'list', 'watch'] } as AccessControl.AccessRule)
    def anonymous = new CoreV1Api(client(server, null))
    def wrong = new CoreV1Api(client(server, 'not-a-token'))
    def reader = new CoreV1Api(client(server, 'reader-token'))
    def admin = new CoreV1Api(client(server, 'admin-token'))
    def cm = new V1ConfigMap().metadata(new V1ObjectMeta().name('authz-cm'))

    when:
    anonymous.listNamespacedConfigMap('default').execute()

    then:
    ApiException unauthenticated = thrown()
    unauthenticated.code == 401
    parse(unauthenticated.responseBody).reason == 'Unauthorized'

    when:
    wrong.listNamespacedConfigMap('default').execute()

    then:
    ApiException wrongToken = thrown()
    wrongToken.code == 401

    when:
    admin.createNamespacedConfigMap('default', cm).execute()
    def listed = reader.listNamespacedConfigMap('default').execute()
    reader.deleteNamespacedConfigMap('authz-cm', 'default').execute()

    then:
    listed.items*.metadata*.name.contains('authz-cm')
    ApiException forbidden = thrown()
    forbidden.code == 403
    parse(forbidden.responseBody).message.contains('User "reader" cannot delete resource "configmaps"')

    and: "reviews answer for the caller's own token"
    !new AuthorizationV1Api(reader.apiClient).createSelfSubjectAccessReview(review('delete', '', 'configmaps', 'default'))
        .execute().status.allowed
    new AuthorizationV1Api(admin.apiClient).createSelfSubjectAccessReview(review('delete', '', 'configmaps', 'default'))
        .execute().status.allowed

    and: "health and version stay reachable, as for a real server's anonymous probes"
    http(anonymous.apiClient, 'GET', '/healthz').status == 200
    http(anonymous.apiClient, 'GET', '/version').status == 200
    http(anonymous.apiClient, 'GET', '/api').status == 401

    and: "the request log records who asked"
    server.requestLog().entries().any { it.user() == 'reader' && it.status() == 403 }

    cleanup:
    admin.deleteNamespacedConfigMap('authz-cm', 'default').execute()
  }
}
