package io.spinagent.testkit.kubernetes

import groovy.json.JsonSlurper
import io.kubernetes.client.informer.SharedIndexInformer
import io.kubernetes.client.informer.SharedInformerFactory
import io.kubernetes.client.openapi.ApiClient
import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.util.Config
import io.kubernetes.client.util.generic.GenericKubernetesApi
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import okhttp3.Request
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification

/**
 * Many clusters behind one listener, each under its own path: each sees only its own objects, with
 * its own tokens, through the official client and kubectl.
 */
class FleetSpec extends Specification {

  @Shared @AutoCleanup KubernetesApiFleet fleet
  @Shared KubernetesApiServer red
  @Shared KubernetesApiServer blue
  @Shared Path dir

  List<SharedInformerFactory> factories = []

  def setupSpec() {
    fleet = KubernetesApiFleet.builder().start()
    red = fleet.addCluster('red')
    blue = fleet.addCluster('blue')
    red.accessControl().acceptToken('red-token')
    blue.accessControl().acceptToken('blue-token')
    red.createObject(configMap('only-red'))
    blue.createObject(configMap('only-blue'))
    dir = Files.createTempDirectory('fleet-spec')
  }

  def cleanupSpec() {
    dir?.toFile()?.deleteDir()
  }

  def cleanup() {
    factories*.stopAllRegisteredInformers()
  }

  def "each cluster has the fleet's address with its own path, and the fleet's CA"() {
    expect:
    red.url() == fleet.url() + '/clusters/red'
    red.isHttps()
    red.caCertificatePem() == fleet.certificates().caCertificatePem()
    red.port() == fleet.port()
    red.isRunning()
  }

  def "the official client sees only its cluster's objects, with its cluster's token"() {
    expect:
    names(client(red, 'red-token')) == ['only-red']
    names(client(blue, 'blue-token')) == ['only-blue']

    when: "a cluster's token is used against another cluster"
    names(client(blue, 'red-token'))

    then:
    def e = thrown(io.kubernetes.client.openapi.ApiException)
    e.code == 401
  }

  def "an informer per cluster syncs and follows its own cluster only"() {
    given:
    def redInformer = informer(client(red, 'red-token'))
    def blueInformer = informer(client(blue, 'blue-token'))

    expect:
    ApiServerSpecification.eventually { redInformer.hasSynced() && blueInformer.hasSynced() }

    when:
    red.createObject(configMap('later-red'))
    blue.createObject(configMap('later-blue'))

    then:
    ApiServerSpecification.eventually { cached(redInformer) == ['only-red', 'later-red'] as Set }
    ApiServerSpecification.eventually { cached(blueInformer) == ['only-blue', 'later-blue'] as Set }
    fleet.activeWatches() == red.activeWatches() + blue.activeWatches()
    red.activeWatches() >= 1
    red.listedObjects() >= 1

    cleanup:
    red.deleteObject('v1', 'ConfigMap', 'default', 'later-red')
    blue.deleteObject('v1', 'ConfigMap', 'default', 'later-blue')
  }

  def "kubectl works against a cluster's path"() {
    given:
    def kubeconfig = red.kubeconfig().token('red-token').writeTo(dir.resolve('red.kubeconfig'))

    when:
    def result = kubectl(kubeconfig, 'get', 'configmaps', '-o', 'json')

    then:
    result.exit == 0
    new JsonSlurper().parseText(result.out).items*.metadata.name == ['only-red']
  }

  def "a path outside every cluster is a 404 Status naming the clusters"() {
    when:
    def response = new okhttp3.OkHttpClient.Builder()
        .sslSocketFactory(fleet.certificates().clientContext().socketFactory, trustManager())
        .build()
        .newCall(new Request.Builder().url(fleet.url() + '/clusters/green/api/v1/namespaces').build())
        .execute()
    def body = new JsonSlurper().parseText(response.body().string())

    then:
    response.code() == 404
    body.kind == 'Status'
    body.message.contains('/clusters/green/api/v1/namespaces')
    body.message.contains('[blue, red]')
  }

  def "a cluster of a fleet is not started on its own, and names are checked"() {
    when:
    red.start()

    then:
    def started = thrown(IllegalStateException)
    started.message.contains("cluster 'red' is served by its fleet")

    when:
    fleet.addCluster('Red')

    then:
    thrown(IllegalArgumentException)

    when:
    fleet.addCluster('red')

    then:
    def taken = thrown(IllegalArgumentException)
    taken.message.contains("already has a cluster named 'red'")
  }

  def "the fleet restarts on its port, and informers resume"() {
    given:
    def redInformer = informer(client(red, 'red-token'))
    assert ApiServerSpecification.eventually { redInformer.hasSynced() }
    def port = fleet.port()

    when:
    fleet.stop()
    red.createObject(configMap('while-down'))
    fleet.start()

    then:
    fleet.port() == port
    ApiServerSpecification.eventually(15_000) { cached(redInformer) == ['only-red', 'while-down'] as Set }

    cleanup:
    red.deleteObject('v1', 'ConfigMap', 'default', 'while-down')
  }

  private static String configMap(String name) {
    """{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name","namespace":"default"},"data":{"k":"v"}}"""
  }

  private ApiClient client(KubernetesApiServer cluster, String token) {
    def kubeconfig = cluster.kubeconfig().token(token).writeTempFile()
    try {
      ApiClient client = Config.fromConfig(kubeconfig.toString())
      client.setHttpClient(client.httpClient.newBuilder().readTimeout(0, TimeUnit.SECONDS).build())
      return client
    } finally {
      Files.deleteIfExists(kubeconfig)
    }
  }

  private static List<String> names(ApiClient client) {
    new CoreV1Api(client).listNamespacedConfigMap('default').execute().items*.metadata*.name
  }

  private SharedIndexInformer<DynamicKubernetesObject> informer(ApiClient client) {
    def factory = new SharedInformerFactory(client)
    factories << factory
    def informer = factory.sharedIndexInformerFor(
        (GenericKubernetesApi) new DynamicKubernetesApi('', 'v1', 'configmaps', client), DynamicKubernetesObject, 0)
    factory.startAllRegisteredInformers()
    informer
  }

  private static Set<String> cached(SharedIndexInformer<DynamicKubernetesObject> informer) {
    informer.indexer.list()*.metadata*.name as Set
  }

  private javax.net.ssl.X509TrustManager trustManager() {
    def factory = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.defaultAlgorithm)
    def store = java.security.KeyStore.getInstance(java.security.KeyStore.defaultType)
    store.load(null, null)
    store.setCertificateEntry('ca', fleet.certificates().caCertificate())
    factory.init(store)
    factory.trustManagers.find { it instanceof javax.net.ssl.X509TrustManager } as javax.net.ssl.X509TrustManager
  }

  private Map kubectl(Path config, String... args) {
    def command = [KubectlSpec.kubectlBinary(), '--kubeconfig', config.toString(), '--cache-dir',
                   dir.resolve('cache').toString()]
    command.addAll(args)
    def process = new ProcessBuilder(command).directory(dir.toFile())
    process.environment().put('HOME', dir.toString())
    def started = process.start()
    def out = new StringBuilder()
    def err = new StringBuilder()
    def readers = [started.consumeProcessOutputStream(out), started.consumeProcessErrorStream(err)]
    assert started.waitFor(60, TimeUnit.SECONDS): "kubectl ${args.join(' ')} did not finish"
    readers*.join()
    [exit: started.exitValue(), out: out.toString(), err: err.toString()]
  }
}
