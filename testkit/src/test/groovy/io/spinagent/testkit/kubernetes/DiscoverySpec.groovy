package io.spinagent.testkit.kubernetes

import io.kubernetes.client.Discovery
import io.kubernetes.client.openapi.ApiException
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api
import io.kubernetes.client.openapi.apis.CustomObjectsApi
import io.kubernetes.client.openapi.apis.VersionApi
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionNames
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionSpec
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionVersion
import io.kubernetes.client.openapi.models.V1CustomResourceSubresources
import io.kubernetes.client.openapi.models.V1CustomResourceValidation
import io.kubernetes.client.openapi.models.V1JSONSchemaProps
import io.kubernetes.client.openapi.models.V1ObjectMeta

class DiscoverySpec extends ApiServerSpecification {

  @Override
  KubernetesApiServer.Builder newServer() {
    KubernetesApiServer.builder().gitVersion('v1.30.2')
  }

  def "/version reports the configured version; health endpoints answer ok"() {
    given:
    def client = client()

    when:
    def version = new VersionApi(client).getCode().execute()

    then:
    version.gitVersion == 'v1.30.2'
    version.major == '1'
    version.minor == '30'
    ['/healthz', '/readyz', '/livez'].every { http(client, 'GET', it).text == 'ok' }
  }

  def "discovery describes the built-in resources"() {
    when:
    def resources = new Discovery(client()).findAll()
    def byName = { String group, String plural -> resources.find { it.group == group && it.resourcePlural == plural } }

    then:
    with(byName('apps', 'deployments')) {
      kind == 'Deployment'
      namespaced
      preferredVersion == 'v1'
      subResources.containsAll(['status', 'scale'])
    }
    with(byName('', 'namespaces')) {
      !namespaced
      kind == 'Namespace'
    }
    ['pods', 'services', 'configmaps', 'secrets', 'serviceaccounts', 'events'].every { byName('', it) }
    ['replicasets', 'statefulsets', 'daemonsets'].every { byName('apps', it) }
    ['jobs', 'cronjobs'].every { byName('batch', it) }
    ['ingresses', 'networkpolicies'].every { byName('networking.k8s.io', it) }
    byName('apiextensions.k8s.io', 'customresourcedefinitions')
    byName('authorization.k8s.io', 'selfsubjectaccessreviews')
    byName('autoscaling', 'horizontalpodautoscalers').preferredVersion == 'v2'
  }

  def "the resource lists carry verbs and short names"() {
    when:
    def apps = http(client(), 'GET', '/apis/apps/v1').json
    def core = http(client(), 'GET', '/api/v1').json
    def deployments = apps.resources.find { it.name == 'deployments' }
    def scale = apps.resources.find { it.name == 'deployments/scale' }

    then:
    apps.kind == 'APIResourceList'
    apps.groupVersion == 'apps/v1'
    deployments.shortNames == ['deploy']
    deployments.verbs as Set == ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as Set
    scale.group == 'autoscaling'
    scale.kind == 'Scale'
    core.resources.find { it.name == 'services' }.shortNames == ['svc']
    http(client(), 'GET', '/apis/authorization.k8s.io/v1').json.resources[0].verbs == ['create']
  }

  def "a CustomResourceDefinition appears in discovery and OpenAPI, is served, and disappears when deleted"() {
    given:
    def client = client()
    def extensions = new ApiextensionsV1Api(client)
    def crd = new V1CustomResourceDefinition().metadata(new V1ObjectMeta().name('sprockets.tools.example.org'))
        .spec(new V1CustomResourceDefinitionSpec().group('tools.example.org').scope('Cluster')
            .names(new V1CustomResourceDefinitionNames().plural('sprockets').singular('sprocket').kind('Sprocket')
                .shortNames(['spr']))
            .versions([
                new V1CustomResourceDefinitionVersion().name('v1beta1').served(true).storage(false)
                    .schema(new V1CustomResourceValidation().openAPIV3Schema(new V1JSONSchemaProps().type('object')
                        .xKubernetesPreserveUnknownFields(true))),
                new V1CustomResourceDefinitionVersion().name('v1').served(true).storage(true)
                    .subresources(new V1CustomResourceSubresources().status([:]))
                    .schema(new V1CustomResourceValidation().openAPIV3Schema(new V1JSONSchemaProps().type('object')
                        .xKubernetesPreserveUnknownFields(true)))]))

    expect:
    http(client, 'GET', '/apis/tools.example.org/v1').status == 404
    !http(client, 'GET', '/apis').json.groups*.name.contains('tools.example.org')

    when:
    extensions.createCustomResourceDefinition(crd).execute()
    def stored = extensions.readCustomResourceDefinition('sprockets.tools.example.org').execute()
    def group = http(client, 'GET', '/apis').json.groups.find { it.name == 'tools.example.org' }
    def resources = http(client, 'GET', '/apis/tools.example.org/v1').json.resources
    def custom = new CustomObjectsApi(client)
    custom.createClusterCustomObject('tools.example.org', 'v1', 'sprockets',
        [apiVersion: 'tools.example.org/v1', kind: 'Sprocket', metadata: [name: 'sp1'], spec: [teeth: 12]]).execute()
    def viaBeta = custom.getClusterCustomObject('tools.example.org', 'v1beta1', 'sprockets', 'sp1').execute()
    def openApiIndex = http(client, 'GET', '/openapi/v3').json
    def aggregated = http(client, 'GET', '/apis', null, [Accept: AGGREGATED_ACCEPT]).json.items
        .find { it.metadata.name == 'tools.example.org' }

    then:
    stored.status.conditions.find { it.type == 'Established' }.status == 'True'
    stored.status.acceptedNames.kind == 'Sprocket'
    group.preferredVersion.version == 'v1'
    group.versions*.version == ['v1', 'v1beta1']
    resources.find { it.name == 'sprockets' }.namespaced == false
    resources.find { it.name == 'sprockets' }.shortNames == ['spr']
    resources*.name.contains('sprockets/status')
    viaBeta.apiVersion == 'tools.example.org/v1beta1'
    viaBeta.spec.teeth == 12
    openApiIndex.paths['apis/tools.example.org/v1'].serverRelativeURL.startsWith('/openapi/v3/apis/tools.example.org/v1?hash=')
    aggregated.versions*.version == ['v1', 'v1beta1']
    aggregated.versions[0].resources.find { it.resource == 'sprockets' }.scope == 'Cluster'
    aggregated.versions[0].resources.find { it.resource == 'sprockets' }.subresources*.subresource == ['status']

    when:
    extensions.deleteCustomResourceDefinition('sprockets.tools.example.org').execute()

    then:
    http(client, 'GET', '/apis/tools.example.org/v1').status == 404
    http(client, 'GET', '/apis/tools.example.org/v1/sprockets').status == 404
    !http(client, 'GET', '/apis').json.groups*.name.contains('tools.example.org')
    !http(client, 'GET', '/openapi/v3').json.paths.containsKey('apis/tools.example.org/v1')
    !http(client, 'GET', '/apis', null, [Accept: AGGREGATED_ACCEPT]).json.items*.metadata*.name.contains('tools.example.org')

    when: "its objects went with it"
    extensions.createCustomResourceDefinition(crd.metadata(new V1ObjectMeta().name('sprockets.tools.example.org'))).execute()
    custom.getClusterCustomObject('tools.example.org', 'v1', 'sprockets', 'sp1').execute()

    then:
    ApiException e = thrown()
    e.code == 404
  }

  def "a CRD whose name is not plural.group is rejected with 422"() {
    when:
    def response = http(client(), 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        [apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: [name: 'wrong'],
         spec: [group: 'a.example', names: [plural: 'bs', kind: 'B'], scope: 'Namespaced',
                versions: [[name: 'v1', served: true, storage: true]]]])

    then:
    response.status == 422
    response.json.reason == 'Invalid'
  }

  def "the OpenAPI v3 documents tell kubectl that PATCH takes fieldValidation"() {
    when:
    def client = client()
    def index = http(client, 'GET', '/openapi/v3').json
    def apps = http(client, 'GET', index.paths['apis/apps/v1'].serverRelativeURL as String).json
    def patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch

    then:
    index.paths.keySet().containsAll(['api/v1', 'apis/apps/v1', 'apis/batch/v1'])
    patch['x-kubernetes-group-version-kind'] == [group: 'apps', version: 'v1', kind: 'Deployment']
    patch.parameters.find { it.name == 'fieldValidation' }.in == 'query'
    !patch.requestBody.content.containsKey('application/strategic-merge-patch+json')
    http(client, 'GET', '/openapi/v2').status == 404
  }

  static final String AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'

  def "aggregated discovery lists every group with its versions and resources in one document"() {
    when:
    def apis = http(client(), 'GET', '/apis', null, [Accept: AGGREGATED_ACCEPT])
    def core = http(client(), 'GET', '/api', null, [Accept: AGGREGATED_ACCEPT])

    then:
    apis.status == 200
    apis.contentType == 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
    apis.json.kind == 'APIGroupDiscoveryList'
    apis.json.apiVersion == 'apidiscovery.k8s.io/v2'
    def apps = apis.json.items.find { it.metadata.name == 'apps' }
    apps.versions*.version == ['v1']
    apps.versions[0].freshness == 'Current'
    def deployments = apps.versions[0].resources.find { it.resource == 'deployments' }
    deployments.responseKind == [group: 'apps', version: 'v1', kind: 'Deployment']
    deployments.scope == 'Namespaced'
    deployments.singularResource == 'deployment'
    deployments.verbs.containsAll(['list', 'watch', 'create'])
    deployments.shortNames == ['deploy']
    deployments.subresources.find { it.subresource == 'scale' }.responseKind == [group: 'autoscaling', version: 'v1', kind: 'Scale']
    apis.json.items.find { it.metadata.name == 'rbac.authorization.k8s.io' }.versions[0].resources
        .find { it.resource == 'clusterroles' }.scope == 'Cluster'
    !apis.json.items.any { !it.metadata.name }

    and: "/api holds the core group alone, without a name"
    core.json.kind == 'APIGroupDiscoveryList'
    core.json.items.size() == 1
    core.json.items[0].metadata.name == null
    core.json.items[0].versions[0].version == 'v1'
    core.json.items[0].versions[0].resources.find { it.resource == 'pods' }.responseKind == [group: '', version: 'v1', kind: 'Pod']
  }

  def "a client asking only for v2beta1 gets v2beta1; one asking for neither gets the legacy documents"() {
    when:
    def beta = http(client(), 'GET', '/apis', null, [Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'])
    def plain = http(client(), 'GET', '/apis', null, [Accept: 'application/json'])

    then:
    beta.contentType == 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'
    beta.json.apiVersion == 'apidiscovery.k8s.io/v2beta1'
    plain.contentType == 'application/json'
    plain.json.kind == 'APIGroupList'
  }

  def "a server built without aggregated discovery answers a request for it with the legacy documents"() {
    given:
    def older = KubernetesApiServer.builder().aggregatedDiscovery(false).start()

    when:
    def response = http(client(older), 'GET', '/apis', null, [Accept: AGGREGATED_ACCEPT])

    then:
    response.status == 200
    response.contentType == 'application/json'
    response.json.kind == 'APIGroupList'

    cleanup:
    older?.close()
  }

  def "unknown paths are 404 Status objects"() {
    when:
    def response = http(client(), 'GET', '/apis/nothing.example/v1/things')

    then:
    response.status == 404
    response.json.kind == 'Status'
    response.json.reason == 'NotFound'
  }
}
