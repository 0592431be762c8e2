package io.spinagent.testkit.kubernetes

import io.kubernetes.client.openapi.ApiException
import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.openapi.models.V1ConfigMap
import io.kubernetes.client.openapi.models.V1ObjectMeta
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.time.Duration
import javax.net.ssl.SSLHandshakeException

class ServerLifecycleSpec extends ApiServerSpecification {

  def "HTTPS is verified against the generated CA; a client that does not trust it is refused"() {
    expect:
    server.url().startsWith('https://127.0.0.1:')
    server.caCertificatePem().startsWith('-----BEGIN CERTIFICATE-----')
    new CoreV1Api(client()).listNamespace().execute().items*.metadata*.name.containsAll(['default', 'kube-system'])

    when: "the JDK client with the CA from the server trusts it"
    def trusting = HttpClient.newBuilder().sslContext(server.certificates().clientContext()).build()
    def response = trusting.send(HttpRequest.newBuilder(URI.create(server.url() + '/version')).build(),
        HttpResponse.BodyHandlers.ofString())

    then:
    response.statusCode() == 200

    when: "without it, the handshake fails"
    HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.url() + '/version')).build(),
        HttpResponse.BodyHandlers.ofString())

    then:
    thrown(SSLHandshakeException)
  }

  def "plain HTTP works too, with a kubeconfig without CA data"() {
    given:
    def plain = startServer(KubernetesApiServer.builder().http())

    expect:
    plain.url().startsWith('http://127.0.0.1:')
    plain.caCertificatePem() == null
    !plain.kubeconfig().toYaml().contains('certificate-authority-data')
    new CoreV1Api(client(plain)).listNamespace().execute().items.size() == 4
  }

  def "the kubeconfig names the server, CA, token and namespace"() {
    given:
    def file = server.kubeconfig().token('abc').namespace('team-a').name('ctx').writeTempFile()

    when:
    def yaml = new org.yaml.snakeyaml.Yaml().load(Files.readString(file)) as Map

    then:
    yaml['current-context'] == 'ctx'
    yaml.clusters[0].cluster.server == server.url()
    new String(Base64.decoder.decode(yaml.clusters[0].cluster['certificate-authority-data'] as String)) == server.caCertificatePem()
    yaml.users[0].user.token == 'abc'
    yaml.contexts[0].context.namespace == 'team-a'

    cleanup:
    Files.deleteIfExists(file)
  }

  def "stop frees the port; restart comes back on the same port with the same objects and resourceVersion"() {
    given:
    def restartable = startServer(KubernetesApiServer.builder())
    def api = new CoreV1Api(client(restartable))
    api.createNamespacedConfigMap('default', new V1ConfigMap().metadata(new V1ObjectMeta().name('kept'))).execute()
    def port = restartable.port()
    def rv = restartable.resourceVersion()

    when:
    restartable.stop()

    then:
    !restartable.running
    new ServerSocket(port, 1, InetAddress.getByName('127.0.0.1')).withCloseable { it.localPort == port }

    when:
    api.listNamespacedConfigMap('default').execute()

    then:
    ApiException down = thrown()
    down.cause instanceof ConnectException

    when:
    restartable.start()

    then:
    restartable.port() == port
    restartable.resourceVersion() == rv
    api.readNamespacedConfigMap('kept', 'default').execute().metadata.resourceVersion as long <= rv

    when:
    restartable.restart()

    then:
    api.listNamespacedConfigMap('default').execute().items*.metadata*.name == ['kept']
  }

  def "two servers get different random ports and different CAs"() {
    given:
    def other = startServer(KubernetesApiServer.builder())

    expect:
    other.port() != server.port()
    other.caCertificatePem() != server.caCertificatePem()
  }

  def "injected failures and latency"() {
    given:
    def api = new CoreV1Api(client())

    when:
    server.faults().failNext(1, 503, '/api/v1/namespaces', 'GET')
    api.listNamespace().execute()

    then:
    ApiException e = thrown()
    e.code == 503
    parse(e.responseBody).reason == 'ServiceUnavailable'

    when:
    def ok = api.listNamespace().execute()
    server.faults().latency(Duration.ofMillis(300))
    def started = System.nanoTime()
    api.listNamespace().execute()
    def elapsed = Duration.ofNanos(System.nanoTime() - started)

    then:
    ok.items.size() >= 4
    elapsed >= Duration.ofMillis(300)

    cleanup:
    server.faults().reset()
  }
}
