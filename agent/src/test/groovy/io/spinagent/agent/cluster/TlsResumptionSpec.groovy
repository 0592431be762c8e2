package io.spinagent.agent.cluster

import io.kubernetes.client.openapi.ApiClient
import io.kubernetes.client.util.ClientBuilder
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import okhttp3.Call
import okhttp3.ConnectionPool
import okhttp3.OkHttpClient
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.Response

import javax.net.ssl.SSLContext
import javax.net.ssl.TrustManager
import javax.net.ssl.TrustManagerFactory
import javax.net.ssl.X509TrustManager
import spock.util.concurrent.PollingConditions

import java.security.KeyStore
import java.security.cert.CertificateException
import java.security.cert.X509Certificate
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * An account's connections to a real TLS API server (testkit's, on the JDK's TLS 1.3): opened at
 * once, as its lists and then its watches hold them, they take turns so that the server's certificate is verified
 * once and the other handshakes resume that session. Counted where a full handshake shows: the
 * client's check of the server's certificate chain, which a resumed handshake skips.
 */
class TlsResumptionSpec extends ClusterSpecification {

  static final int CONNECTIONS = 12
  static final String PATH = '/api/v1/namespaces/default/configmaps'

  AtomicInteger verified = new AtomicInteger()
  List<Call> calls = new CopyOnWriteArrayList<>()
  List<Response> responses = new CopyOnWriteArrayList<>()
  def threads = Executors.newFixedThreadPool(CONNECTIONS)

  def cleanup() {
    calls*.cancel()
    responses*.close()
    threads.shutdownNow()
  }

  def "lists an account sends together verify the server's certificate once and resume its session on the other connections"() {
    given:
    def cluster = server()
    def pool = new ConnectionPool(CONNECTIONS, 1, TimeUnit.MINUTES)
    def http = new KubeHttp(client(cluster), 30, pool, new ConnectionPool(0, 1, TimeUnit.MILLISECONDS))

    when: 'each holds its connection until its answer is read: as a list does, and then its watch'
    openTogether { http.newGet(PATH, [:], KubeHttp.JSON, false, false) }

    then: 'a connection per list, one full handshake'
    responses.size() == CONNECTIONS
    pool.connectionCount() == CONNECTIONS
    verified.get() == 1
  }

  def "without turns the same lists each do a full handshake: what the turns are for"() {
    given:
    def cluster = server()
    def pool = new ConnectionPool(CONNECTIONS, 1, TimeUnit.MINUTES)
    OkHttpClient plain = client(cluster).httpClient.newBuilder()
        .protocols([Protocol.HTTP_1_1]).connectionPool(pool).readTimeout(0, TimeUnit.SECONDS).build()

    when:
    openTogether { plain.newCall(get(cluster)) }

    then:
    responses.size() == CONNECTIONS
    pool.connectionCount() == CONNECTIONS
    verified.get() >= CONNECTIONS - 1
  }

  def "a turn is given back when its handshake fails, when its call is cancelled before the answer, and when the answer comes"() {
    given:
    def cluster = server()
    def resumption = new TlsResumption()
    OkHttpClient http = client(cluster).httpClient.newBuilder()
        .protocols([Protocol.HTTP_1_1])
        .connectionPool(new ConnectionPool(0, 1, TimeUnit.MILLISECONDS))
        .eventListenerFactory(resumption.listeners())
        .build()
    def eventually = new PollingConditions(timeout: 10)

    when: 'the server presents a certificate the client does not trust'
    def refusing = trustingOnly(cluster.certificates().caCertificate(), true)
    http.newBuilder().sslSocketFactory(refusing.socketFactory, refusing.trustManager).build()
        .newCall(get(cluster)).execute()

    then:
    thrown(IOException)
    resumption.turnsFree() == 1

    when: 'a call waits for an answer that is slow to come'
    cluster.faults().latency(Duration.ofSeconds(20))
    Call slow = http.newCall(get(cluster))
    calls << slow
    def waiting = threads.submit { slow.execute() }

    then: 'it holds the turn'
    eventually.eventually { assert resumption.turnsFree() == 0 }

    when: 'it is cancelled'
    slow.cancel()

    then:
    eventually.eventually { assert waiting.done }
    resumption.turnsFree() == 1

    when: 'calls are answered'
    cluster.faults().reset()
    3.times { http.newCall(get(cluster)).execute().close() }

    then:
    resumption.turnsFree() == 1
  }

  private void openTogether(Closure<Call> newCall) {
    def start = new CountDownLatch(1)
    def futures = (1..CONNECTIONS).collect {
      Call call = newCall()
      calls << call
      threads.submit {
        start.await()
        responses << call.execute()
      }
    }
    start.countDown()
    futures*.get(30, TimeUnit.SECONDS)
  }

  private static Request get(KubernetesApiServer cluster) {
    new Request.Builder().url(cluster.url() + PATH).build()
  }

  /** The account's client, as the kubeconfig makes it, but counting full handshakes. */
  private ApiClient client(KubernetesApiServer cluster) {
    ApiClient client = new ClientBuilder().setBasePath(cluster.url())
        .setCertificateAuthority(cluster.caCertificatePem().bytes).build()
    def tls = trustingOnly(cluster.certificates().caCertificate(), false)
    client.setHttpClient(client.httpClient.newBuilder().sslSocketFactory(tls.socketFactory, tls.trustManager).build())
    client
  }

  private Map trustingOnly(X509Certificate ca, boolean refuse) {
    def store = KeyStore.getInstance('PKCS12')
    store.load(null, null)
    store.setCertificateEntry('ca', ca)
    def factory = TrustManagerFactory.getInstance(TrustManagerFactory.defaultAlgorithm)
    factory.init(store)
    X509TrustManager trusted = factory.trustManagers[0] as X509TrustManager
    X509TrustManager counting = new X509TrustManager() {
      void checkClientTrusted(X509Certificate[] chain, String authType) { trusted.checkClientTrusted(chain, authType) }

      void checkServerTrusted(X509Certificate[] chain, String authType) {
        verified.incrementAndGet()
        if (refuse) {
          throw new CertificateException('refused by the spec')
        }
        trusted.checkServerTrusted(chain, authType)
      }

      X509Certificate[] getAcceptedIssuers() { trusted.acceptedIssuers }
    }
    def context = SSLContext.getInstance('TLS')
    context.init(null, [counting] as TrustManager[], null)
    [socketFactory: context.socketFactory, trustManager: counting]
  }
}
