package io.spinagent.testkit.kubernetes

import groovy.json.JsonSlurper
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.Shared

/**
 * The real kubectl against the test server: what Clouddriver's stock Kubernetes provider does through
 * our tunnel must work here first. This spec never skips: without kubectl on PATH every feature fails
 * and says how to install it.
 */
class KubectlSpec extends ApiServerSpecification {

  static final String TOKEN = 'kubectl-token'

  @Shared Path dir
  @Shared Path kubeconfig

  @Override
  KubernetesApiServer.Builder newServer() {
    // kubectl from the Google Cloud SDK dispatches to the kubectl release matching the server's minor
    // version; v1.32 makes it run kubectl 1.32, the version this project targets.
    KubernetesApiServer.builder().gitVersion('v1.32.4')
  }

  def setupSpec() {
    dir = Files.createTempDirectory('kubectl-spec')
    server.accessControl().acceptToken(TOKEN, 'kubectl-user', { AccessControl.AccessRequest r ->
      !(r.verb() == 'delete' && r.resource() == 'secrets')
    } as AccessControl.AccessRule)
    kubeconfig = server.kubeconfig().token(TOKEN).writeTo(dir.resolve('kubeconfig'))
  }

  def cleanupSpec() {
    dir?.toFile()?.deleteDir()
  }

  static String kubectlBinary() {
    Kubectl.binary()
  }

  Map kubectl(Path config, String... args) {
    new Kubectl(dir).run(config, args)
  }

  Map kubectl(String... args) {
    kubectl(kubeconfig, args)
  }

  Map ok(String... args) {
    def result = kubectl(args)
    assert result.exit == 0: "kubectl ${args.join(' ')} failed: ${result.err}"
    result
  }

  Path file(String name, String content) {
    def path = dir.resolve(name)
    Files.writeString(path, content.stripIndent())
    path
  }

  static String deployment(String image, int replicas = 2) {
    """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      labels: {app: web}
    spec:
      replicas: $replicas
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
          - name: nginx
            image: $image
            ports:
            - containerPort: 80
          - name: sidecar
            image: busybox:1.36
    """
  }

  def "kubectl reaches the server over verified TLS with its token"() {
    when:
    def version = new JsonSlurper().parseText(ok('version', '-o', 'json').out)
    def namespaces = ok('get', 'namespaces', '-o', 'name').out.readLines()

    then:
    version.serverVersion.gitVersion == 'v1.32.4'
    version.clientVersion.minor.startsWith('32')
    namespaces.containsAll(['namespace/default', 'namespace/kube-system'])
    server.requestLog().entries().any { it.user() == 'kubectl-user' }
  }

  def "kubectl apply creates a Deployment; applying a change patches it"() {
    when:
    def created = ok('apply', '-f', file('deploy.yaml', deployment('nginx:1.25')).toString())
    def first = new JsonSlurper().parseText(ok('get', 'deploy', 'web', '-o', 'json').out)

    then:
    created.out.trim() == 'deployment.apps/web created'
    first.kind == 'Deployment'
    first.metadata.namespace == 'default'
    first.metadata.generation == 1
    first.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'].contains('nginx:1.25')
    first.spec.template.spec.containers*.name == ['nginx', 'sidecar']

    when:
    def configured = ok('apply', '-f', file('deploy.yaml', deployment('nginx:1.26', 3)).toString())
    def second = new JsonSlurper().parseText(ok('get', 'deployments.apps', 'web', '-o', 'json').out)
    def table = ok('get', 'deploy').out

    then:
    configured.out.trim() == 'deployment.apps/web configured'
    second.spec.replicas == 3
    second.spec.template.spec.containers*.image == ['nginx:1.26', 'busybox:1.36']
    second.spec.template.spec.containers[0].ports == [[containerPort: 80]]
    second.metadata.generation == 2
    second.metadata.uid == first.metadata.uid
    table.readLines()[0].split(/\s+/) as List == ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']
    // No controller fills in the status: none of the three replicas is ready.
    table.readLines()[1].split(/\s+/).take(4) as List == ['web', '0/3', '0', '0']

    when: "applying the same file again changes nothing"
    def unchanged = ok('apply', '-f', dir.resolve('deploy.yaml').toString())

    then:
    unchanged.out.trim() == 'deployment.apps/web unchanged'
  }

  def "kubectl scale, patch and delete a Deployment"() {
    given:
    ok('apply', '-f', file('deploy2.yaml', deployment('nginx:1.25').replace('name: web', 'name: api')
        .replace('app: web', 'app: api').replace('{app: web}', '{app: api}')).toString())

    when:
    def scaled = ok('scale', 'deployment/api', '--replicas=5')
    def strategic = ok('patch', 'deploy', 'api', '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.37"}]}}}}')
    def merge = ok('patch', 'deploy', 'api', '--type', 'merge', '-p', '{"metadata":{"labels":{"tier":"front"}}}')
    def json = ok('patch', 'deploy', 'api', '--type', 'json', '-p',
        '[{"op":"add","path":"/metadata/annotations/example.com~1owner","value":"team-a"}]')
    def object = new JsonSlurper().parseText(ok('get', 'deploy', 'api', '-o', 'json').out)
    def selected = ok('get', 'deploy', '-l', 'tier in (front,back)', '-o', 'name').out.readLines()

    then:
    scaled.out.trim() == 'deployment.apps/api scaled'
    strategic.out.trim() == 'deployment.apps/api patched'
    merge.out.trim() == 'deployment.apps/api patched'
    json.out.trim() == 'deployment.apps/api patched'
    object.spec.replicas == 5
    object.spec.template.spec.containers*.image == ['nginx:1.25', 'busybox:1.37']
    object.metadata.labels.tier == 'front'
    object.metadata.annotations['example.com/owner'] == 'team-a'
    selected == ['deployment.apps/api']

    when:
    def deleted = ok('delete', 'deploy', 'api')
    def missing = kubectl('get', 'deploy', 'api')

    then:
    deleted.out.trim() == 'deployment.apps "api" deleted'
    missing.exit != 0
    missing.err.contains('NotFound')
  }

  def "kubectl apply --server-side creates and updates"() {
    given:
    def manifest = file('ssa.yaml', '''
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: ssa
      data:
        a: "1"
      ''')

    when:
    def first = ok('apply', '--server-side', '-f', manifest.toString())
    Files.writeString(manifest, Files.readString(manifest).replace('a: "1"', 'a: "2"'))
    def second = ok('apply', '--server-side', '-f', manifest.toString())
    def data = new JsonSlurper().parseText(ok('get', 'cm', 'ssa', '-o', 'json').out).data

    then:
    first.out.trim() == 'configmap/ssa serverside-applied'
    second.out.trim() == 'configmap/ssa serverside-applied'
    data == [a: '2']
  }

  def "kubectl works with a CRD and its custom resources"() {
    given:
    def crd = file('crd.yaml', '''
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: widgets.example.com
      spec:
        group: example.com
        scope: Namespaced
        names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
        versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
      ''')
    def widget = file('widget.yaml', '''
      apiVersion: example.com/v1
      kind: Widget
      metadata:
        name: w1
      spec:
        size: 3
        tags: [a, b]
      ''')

    when:
    ok('apply', '-f', crd.toString())
    def established = ok('wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=10s')
    def created = ok('apply', '-f', widget.toString())
    Files.writeString(widget, Files.readString(widget).replace('size: 3', 'size: 4'))
    def configured = ok('apply', '-f', widget.toString())
    def spec = new JsonSlurper().parseText(ok('get', 'wd', 'w1', '-o', 'json').out).spec

    then:
    established.out.contains('condition met')
    created.out.trim() == 'widget.example.com/w1 created'
    configured.out.trim() == 'widget.example.com/w1 configured'
    spec == [size: 4, tags: ['a', 'b']]

    when:
    ok('delete', '-f', crd.toString())

    then:
    !server.registry().find('example.com', 'v1', 'widgets').present
  }

  def "kubectl auth can-i is answered from SelfSubjectAccessReviews and the token's rule"() {
    expect:
    kubectl('auth', 'can-i', 'list', 'pods').out.trim() == 'yes'
    kubectl('auth', 'can-i', 'delete', 'secrets').out.trim() == 'no'
    kubectl('auth', 'can-i', 'delete', 'secrets').exit == 1
  }

  def "kubectl without a valid token is told it is unauthorized"() {
    given:
    def bad = server.kubeconfig().token('wrong').writeTo(dir.resolve('bad-kubeconfig'))

    when:
    def result = kubectl(bad, 'get', 'pods')

    then:
    result.exit != 0
    result.err.contains('Unauthorized')
  }

  def "kubectl get --watch streams changes"() {
    given:
    def command = [kubectlBinary(), '--kubeconfig', kubeconfig.toString(), '--cache-dir', dir.resolve('cache').toString(),
                   'get', 'configmaps', '--watch', '--output-watch-events']
    def builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
    builder.environment().put('HOME', dir.toString())
    def process = builder.start()
    def output = new StringBuffer()
    def reader = Thread.start { process.inputStream.eachLine { output.append(it).append('\n') } }
    def watchedLines = { output.toString().readLines().findAll { it.split(/\s+/).contains('watched') } }

    when: "the watch is open, an object comes and goes"
    assert eventually(20_000) { server.activeWatches() > 0 }
    server.createObject('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watched"}}')
    assert eventually(20_000) { watchedLines().size() == 1 }
    server.deleteObject('v1', 'ConfigMap', 'default', 'watched')

    then:
    eventually(20_000) { watchedLines().size() == 2 }
    output.toString().readLines()[0].split(/\s+/) as List == ['EVENT', 'NAME', 'DATA', 'AGE']
    watchedLines().collect { it.split(/\s+/)[0] } == ['ADDED', 'DELETED']

    cleanup:
    process?.destroy()
    process?.waitFor(10, TimeUnit.SECONDS)
    reader?.join(5000)
  }

  def "imperative kubectl create sends protobuf, which the server refuses with a clear 415"() {
    when:
    def result = kubectl('create', 'configmap', 'imperative', '--from-literal=a=b')

    then:
    result.exit != 0
    result.err.contains('protobuf bodies only for SelfSubjectAccessReview')
  }
}
