package io.spinagent.testkit.kubernetes

import com.google.gson.JsonParser
import io.kubernetes.client.custom.V1Patch
import io.kubernetes.client.openapi.ApiException
import io.kubernetes.client.openapi.apis.AppsV1Api
import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api
import io.kubernetes.client.openapi.models.V1ClusterRole
import io.kubernetes.client.openapi.models.V1ConfigMap
import io.kubernetes.client.openapi.models.V1Container
import io.kubernetes.client.openapi.models.V1ContainerPort
import io.kubernetes.client.openapi.models.V1Deployment
import io.kubernetes.client.openapi.models.V1DeploymentSpec
import io.kubernetes.client.openapi.models.V1DeploymentStatus
import io.kubernetes.client.openapi.models.V1LabelSelector
import io.kubernetes.client.openapi.models.V1Namespace
import io.kubernetes.client.openapi.models.V1ObjectMeta
import io.kubernetes.client.openapi.models.V1PodSpec
import io.kubernetes.client.openapi.models.V1PodTemplateSpec
import io.kubernetes.client.util.PatchUtils
import spock.lang.Shared

class CrudSpec extends ApiServerSpecification {

  @Shared CoreV1Api core
  @Shared AppsV1Api apps

  def setupSpec() {
    def client = client()
    core = new CoreV1Api(client)
    apps = new AppsV1Api(client)
  }

  static V1ConfigMap configMap(String name, Map<String, String> labels = [:], Map<String, String> data = [k: 'v']) {
    new V1ConfigMap().metadata(new V1ObjectMeta().name(name).labels(labels)).data(data)
  }

  static V1Deployment deployment(String name, int replicas = 1) {
    new V1Deployment().metadata(new V1ObjectMeta().name(name).labels([app: name]))
        .spec(new V1DeploymentSpec().replicas(replicas)
            .selector(new V1LabelSelector().matchLabels([app: name]))
            .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels([app: name]))
                .spec(new V1PodSpec().containers([
                    new V1Container().name('app').image('nginx:1.25').ports([new V1ContainerPort().containerPort(80)]),
                    new V1Container().name('sidecar').image('busybox:1.36')]))))
  }

  def "create sets uid, creationTimestamp, generation and a global, increasing resourceVersion"() {
    when:
    def first = core.createNamespacedConfigMap('default', configMap('crud-first')).execute()
    def second = apps.createNamespacedDeployment('default', deployment('crud-second')).execute()

    then:
    UUID.fromString(first.metadata.uid)
    UUID.fromString(second.metadata.uid)
    first.metadata.uid != second.metadata.uid
    first.metadata.creationTimestamp != null
    second.metadata.generation == 1
    first.metadata.namespace == 'default'
    Long.parseLong(second.metadata.resourceVersion) > Long.parseLong(first.metadata.resourceVersion)
    Long.parseLong(second.metadata.resourceVersion) == server.resourceVersion()

    and: "the stored object reads back identically"
    core.readNamespacedConfigMap('crud-first', 'default').execute() == first
  }

  def "creating an existing object is a 409 AlreadyExists Status"() {
    given:
    core.createNamespacedConfigMap('default', configMap('crud-dup')).execute()

    when:
    core.createNamespacedConfigMap('default', configMap('crud-dup')).execute()

    then:
    ApiException e = thrown()
    e.code == 409
    def status = parse(e.responseBody)
    status.kind == 'Status'
    status.apiVersion == 'v1'
    status.status == 'Failure'
    status.reason == 'AlreadyExists'
    status.code == 409
    status.message == 'configmaps "crud-dup" already exists'
    status.details.name == 'crud-dup'
    status.details.kind == 'configmaps'
  }

  def "reading or deleting a missing object is a 404 NotFound Status"() {
    when:
    apps.readNamespacedDeployment('nope', 'default').execute()

    then:
    ApiException e = thrown()
    e.code == 404
    parse(e.responseBody).reason == 'NotFound'
    parse(e.responseBody).message == 'deployments.apps "nope" not found'

    when:
    core.deleteNamespacedConfigMap('nope', 'default').execute()

    then:
    ApiException e2 = thrown()
    e2.code == 404
  }

  def "a replace with a stale resourceVersion is a 409 Conflict, with the current one it succeeds"() {
    given:
    def created = core.createNamespacedConfigMap('default', configMap('crud-replace')).execute()
    def updated = core.replaceNamespacedConfigMap('crud-replace', 'default', created.data([k: 'v2'])).execute()

    when: "replacing based on the first version"
    core.replaceNamespacedConfigMap('crud-replace', 'default',
        configMap('crud-replace', [:], [k: 'v3']).metadata(new V1ObjectMeta().name('crud-replace')
            .resourceVersion(created.metadata.resourceVersion))).execute()

    then:
    ApiException e = thrown()
    e.code == 409
    parse(e.responseBody).reason == 'Conflict'
    parse(e.responseBody).message.contains('the object has been modified')

    and:
    Long.parseLong(updated.metadata.resourceVersion) > Long.parseLong(created.metadata.resourceVersion)
    updated.metadata.uid == created.metadata.uid
    updated.metadata.creationTimestamp == created.metadata.creationTimestamp
    core.readNamespacedConfigMap('crud-replace', 'default').execute().data == [k: 'v2']
  }

  def "a write that changes nothing keeps the resourceVersion; spec changes bump generation, metadata changes do not"() {
    given:
    def created = apps.createNamespacedDeployment('default', deployment('crud-gen')).execute()

    when:
    def same = apps.replaceNamespacedDeployment('crud-gen', 'default', created).execute()
    def labelled = apps.replaceNamespacedDeployment('crud-gen', 'default',
        same.metadata(same.metadata.putLabelsItem('extra', 'yes'))).execute()
    labelled.spec.replicas = 4
    def scaled = apps.replaceNamespacedDeployment('crud-gen', 'default', labelled).execute()

    then:
    same.metadata.resourceVersion == created.metadata.resourceVersion
    labelled.metadata.generation == 1
    labelled.metadata.resourceVersion != created.metadata.resourceVersion
    scaled.metadata.generation == 2
  }

  def "merge patch: objects merge, null deletes, lists are replaced"() {
    given:
    core.createNamespacedConfigMap('default', configMap('crud-merge', [a: '1', b: '2'], [x: '1', y: '2'])).execute()

    when:
    def patched = PatchUtils.patch(V1ConfigMap, {
      core.patchNamespacedConfigMap('crud-merge', 'default',
          new V1Patch('{"metadata":{"labels":{"b":null,"c":"3"}},"data":{"x":"10"}}')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, core.apiClient)

    then:
    patched.metadata.labels == [a: '1', c: '3']
    patched.data == [x: '10', y: '2']
  }

  def "JSON patch: RFC 6901 escapes, test preconditions, a failed operation changes nothing"() {
    given:
    core.createNamespacedConfigMap('default', configMap('crud-json', ['app.kubernetes.io/name': 'one'])).execute()

    when:
    def patched = PatchUtils.patch(V1ConfigMap, {
      core.patchNamespacedConfigMap('crud-json', 'default', new V1Patch('''[
          {"op":"test","path":"/metadata/labels/app.kubernetes.io~1name","value":"one"},
          {"op":"replace","path":"/metadata/labels/app.kubernetes.io~1name","value":"two"},
          {"op":"add","path":"/data/new","value":"n"},
          {"op":"copy","from":"/data/k","path":"/data/k2"},
          {"op":"remove","path":"/data/k"}]''')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_JSON_PATCH, core.apiClient)

    then:
    patched.metadata.labels == ['app.kubernetes.io/name': 'two']
    patched.data == [new: 'n', k2: 'v']

    when:
    PatchUtils.patch(V1ConfigMap, {
      core.patchNamespacedConfigMap('crud-json', 'default', new V1Patch('''[
          {"op":"add","path":"/data/ignored","value":"x"},
          {"op":"test","path":"/data/new","value":"not-n"}]''')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_JSON_PATCH, core.apiClient)

    then:
    ApiException e = thrown()
    e.code == 422
    core.readNamespacedConfigMap('crud-json', 'default').execute().data == [new: 'n', k2: 'v']
  }

  def "strategic merge patch merges containers by name and honours \$patch: delete"() {
    given:
    apps.createNamespacedDeployment('default', deployment('crud-smp')).execute()

    when:
    def patched = PatchUtils.patch(V1Deployment, {
      apps.patchNamespacedDeployment('crud-smp', 'default', new V1Patch('''{"spec":{"template":{"spec":{
          "containers":[{"name":"sidecar","image":"busybox:1.37"},{"name":"extra","image":"redis:7"}]}}}}''')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, apps.apiClient)

    then:
    patched.spec.template.spec.containers*.name == ['app', 'sidecar', 'extra']
    patched.spec.template.spec.containers.find { it.name == 'app' }.ports*.containerPort == [80]
    patched.spec.template.spec.containers.find { it.name == 'sidecar' }.image == 'busybox:1.37'
    patched.metadata.generation == 2

    when:
    patched = PatchUtils.patch(V1Deployment, {
      apps.patchNamespacedDeployment('crud-smp', 'default', new V1Patch('''{"spec":{"template":{"spec":{
          "containers":[{"name":"extra","$patch":"delete"}]}}}}''')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH, apps.apiClient)

    then:
    patched.spec.template.spec.containers*.name == ['app', 'sidecar']
  }

  def "server-side apply creates, then merges; it requires a field manager"() {
    given:
    def manifest = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"crud-apply","labels":{"a":"1"}},"data":{"k":"v"}}'

    when:
    def created = PatchUtils.patch(V1ConfigMap, {
      core.patchNamespacedConfigMap('crud-apply', 'default', new V1Patch(manifest)).fieldManager('spec').force(true).buildCall(null)
    }, V1Patch.PATCH_FORMAT_APPLY_YAML, core.apiClient)
    def merged = PatchUtils.patch(V1ConfigMap, {
      core.patchNamespacedConfigMap('crud-apply', 'default',
          new V1Patch('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: crud-apply\ndata:\n  k2: v2\n'))
          .fieldManager('spec').force(true).buildCall(null)
    }, V1Patch.PATCH_FORMAT_APPLY_YAML, core.apiClient)

    then:
    created.metadata.uid != null
    merged.metadata.uid == created.metadata.uid
    merged.metadata.labels == [a: '1']
    merged.data == [k: 'v', k2: 'v2']

    when:
    def response = http(core.apiClient, 'PATCH', '/api/v1/namespaces/default/configmaps/crud-apply', manifest,
        ['Content-Type': 'application/apply-patch+yaml'])

    then:
    response.status == 400
    response.json.message.contains('fieldManager')
  }

  def "an unknown patch content type is 415"() {
    given:
    core.createNamespacedConfigMap('default', configMap('crud-415')).execute()

    expect:
    http(core.apiClient, 'PATCH', '/api/v1/namespaces/default/configmaps/crud-415', '{}',
        ['Content-Type': 'application/xml']).status == 415
  }

  def "the status subresource: main writes keep status, /status writes change only status"() {
    given:
    def created = apps.createNamespacedDeployment('default',
        deployment('crud-status').status(new V1DeploymentStatus().replicas(7))).execute()

    expect: "status is dropped on create, as the deployments strategy does"
    created.status == null

    when:
    created.status = new V1DeploymentStatus().replicas(1).readyReplicas(1)
    created.spec.replicas = 3
    def afterStatus = apps.replaceNamespacedDeploymentStatus('crud-status', 'default', created).execute()

    then:
    afterStatus.status.readyReplicas == 1
    afterStatus.spec.replicas == 1
    afterStatus.metadata.generation == 1

    when:
    afterStatus.status = new V1DeploymentStatus().replicas(99)
    def afterMain = apps.replaceNamespacedDeployment('crud-status', 'default', afterStatus).execute()

    then:
    afterMain.status.readyReplicas == 1
    afterMain.status.replicas == 1
  }

  def "the scale subresource reads and writes spec.replicas as an autoscaling/v1 Scale"() {
    given:
    apps.createNamespacedDeployment('default', deployment('crud-scale', 2)).execute()

    when:
    def scale = apps.readNamespacedDeploymentScale('crud-scale', 'default').execute()
    def patched = PatchUtils.patch(io.kubernetes.client.openapi.models.V1Scale, {
      apps.patchNamespacedDeploymentScale('crud-scale', 'default', new V1Patch('{"spec":{"replicas":5}}')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, apps.apiClient)

    then:
    scale.kind == 'Scale'
    scale.apiVersion == 'autoscaling/v1'
    scale.spec.replicas == 2
    scale.status.selector == 'app=crud-scale'
    patched.spec.replicas == 5
    apps.readNamespacedDeployment('crud-scale', 'default').execute().spec.replicas == 5
  }

  def "delete returns the object; finalizers hold it until they are removed"() {
    given:
    core.createNamespacedConfigMap('default', configMap('crud-del')).execute()
    def withFinalizer = configMap('crud-fin')
    withFinalizer.metadata.finalizers(['example.com/hold'])
    core.createNamespacedConfigMap('default', withFinalizer).execute()

    when:
    def deleted = core.deleteNamespacedConfigMap('crud-del', 'default').execute()

    then:
    deleted != null
    notFound { core.readNamespacedConfigMap('crud-del', 'default').execute() }

    when:
    core.deleteNamespacedConfigMap('crud-fin', 'default').execute()
    def terminating = core.readNamespacedConfigMap('crud-fin', 'default').execute()

    then:
    terminating.metadata.deletionTimestamp != null

    when:
    PatchUtils.patch(V1ConfigMap, {
      core.patchNamespacedConfigMap('crud-fin', 'default', new V1Patch('{"metadata":{"finalizers":null}}')).buildCall(null)
    }, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, core.apiClient)

    then:
    notFound { core.readNamespacedConfigMap('crud-fin', 'default').execute() }
  }

  def "namespaced objects need an existing namespace; deleting a namespace deletes what is in it"() {
    when:
    core.createNamespacedConfigMap('crud-missing', configMap('x')).execute()

    then:
    ApiException e = thrown()
    e.code == 404
    parse(e.responseBody).message == 'namespaces "crud-missing" not found'

    when:
    def ns = core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name('crud-ns'))).execute()
    core.createNamespacedConfigMap('crud-ns', configMap('inside')).execute()
    core.deleteNamespace('crud-ns').execute()

    then:
    ns.status.phase == 'Active'
    ns.metadata.labels['kubernetes.io/metadata.name'] == 'crud-ns'
    ns.metadata.namespace == null
    notFound { core.readNamespacedConfigMap('inside', 'crud-ns').execute() }
    notFound { core.readNamespace('crud-ns').execute() }
  }

  def "cluster-scoped resources live outside namespaces"() {
    given:
    def rbac = new RbacAuthorizationV1Api(core.apiClient)

    when:
    def role = rbac.createClusterRole(new V1ClusterRole().metadata(new V1ObjectMeta().name('crud-viewer'))).execute()
    def listed = rbac.listClusterRole().execute()

    then:
    role.metadata.namespace == null
    listed.items*.metadata*.name.contains('crud-viewer')
    rbac.readClusterRole('crud-viewer').execute().metadata.uid == role.metadata.uid
  }

  def "a body for another kind or with a mismatching name is a 400"() {
    when:
    def response = http(core.apiClient, 'POST', '/api/v1/namespaces/default/configmaps',
        [apiVersion: 'v1', kind: 'Secret', metadata: [name: 'kind-mismatch']])

    then:
    response.status == 400
    response.json.reason == 'BadRequest'

    when:
    core.createNamespacedConfigMap('default', configMap('crud-name')).execute()
    response = http(core.apiClient, 'PUT', '/api/v1/namespaces/default/configmaps/crud-name',
        [apiVersion: 'v1', kind: 'ConfigMap', metadata: [name: 'other']])

    then:
    response.status == 400
  }

  def "generateName gets a random suffix"() {
    when:
    def created = core.createNamespacedConfigMap('default',
        new V1ConfigMap().metadata(new V1ObjectMeta().generateName('gen-'))).execute()

    then:
    created.metadata.name ==~ /gen-[a-z0-9]{5}/
  }

  def "label selector #selector matches #expected"() {
    given:
    if (!server.getObject('v1', 'Namespace', null, 'selectors').present) {
      server.createObject('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"selectors"}}')
      [['s-web', [app: 'web', tier: 'front']], ['s-api', [app: 'api', tier: 'back']],
       ['s-db', [app: 'db']], ['s-none', [:]]].each { name, labels ->
        core.createNamespacedConfigMap('selectors', configMap(name, labels)).execute()
      }
    }

    expect:
    core.listNamespacedConfigMap('selectors').labelSelector(selector).execute().items*.metadata*.name.sort() == expected

    where:
    selector                      || expected
    'app=web'                     || ['s-web']
    'app==api'                    || ['s-api']
    'app!=web'                    || ['s-api', 's-db', 's-none']
    'app in (web, api)'           || ['s-api', 's-web']
    'app notin (web,api)'         || ['s-db', 's-none']
    'tier'                        || ['s-api', 's-web']
    '!tier'                       || ['s-db', 's-none']
    'app,tier!=front'             || ['s-api', 's-db']
    'app in (web,api),tier=back'  || ['s-api']
  }

  def "field selectors on metadata.name and metadata.namespace"() {
    given:
    core.createNamespacedConfigMap('default', configMap('fs-one')).execute()
    core.createNamespacedConfigMap('default', configMap('fs-two')).execute()

    expect:
    core.listNamespacedConfigMap('default').fieldSelector('metadata.name=fs-one').execute().items*.metadata*.name == ['fs-one']
    core.listConfigMapForAllNamespaces().fieldSelector('metadata.namespace=default,metadata.name!=fs-one')
        .execute().items*.metadata*.name.contains('fs-two')
    !core.listConfigMapForAllNamespaces().fieldSelector('metadata.namespace=default,metadata.name!=fs-one')
        .execute().items*.metadata*.name.contains('fs-one')
    core.listConfigMapForAllNamespaces().fieldSelector('metadata.namespace=kube-system').execute().items.isEmpty()
  }

  def "an invalid selector is a 400"() {
    when:
    core.listNamespacedConfigMap('default').labelSelector('app in ()').execute()

    then:
    ApiException e = thrown()
    e.code == 400
  }

  def "deletecollection deletes what the selector matches"() {
    given:
    core.createNamespacedConfigMap('default', configMap('dc-1', [batch: 'x'])).execute()
    core.createNamespacedConfigMap('default', configMap('dc-2', [batch: 'x'])).execute()
    core.createNamespacedConfigMap('default', configMap('dc-3', [batch: 'y'])).execute()

    when:
    core.deleteCollectionNamespacedConfigMap('default').labelSelector('batch=x').execute()

    then:
    core.listNamespacedConfigMap('default').labelSelector('batch').execute().items*.metadata*.name == ['dc-3']
  }

  def "dryRun=All validates without storing"() {
    when:
    def dry = core.createNamespacedConfigMap('default', configMap('crud-dry')).dryRun('All').execute()

    then:
    dry.metadata.name == 'crud-dry'
    notFound { core.readNamespacedConfigMap('crud-dry', 'default').execute() }
  }

  def "the direct Java API writes through the same store"() {
    when:
    def json = server.createObject('''
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: direct
      data:
        k: v
      '''.stripIndent())

    then:
    JsonParser.parseString(json).asJsonObject.getAsJsonObject('metadata').get('namespace').asString == 'default'
    core.readNamespacedConfigMap('direct', 'default').execute().data == [k: 'v']
    server.getObject('v1', 'ConfigMap', 'default', 'direct').present

    when:
    server.mergePatchObject('v1', 'ConfigMap', 'default', 'direct', '{"data":{"k":"w"}}')
    server.deleteObject('v1', 'ConfigMap', 'default', 'direct')

    then:
    !server.getObject('v1', 'ConfigMap', 'default', 'direct').present
  }

  static boolean notFound(Closure call) {
    try {
      call()
      return false
    } catch (ApiException e) {
      return e.code == 404
    }
  }
}
