package io.spinagent.testkit.kubernetes

import groovy.transform.CompileStatic
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import java.time.Duration
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.Flow
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Specification

/**
 * Watches are written by the listener's watch pump, not by a thread each: many open watches cost a
 * few threads, and a client that stops reading is cut off without holding up the others.
 */
class WatchPumpSpec extends Specification {

  @AutoCleanup
  KubernetesApiServer server

  @AutoCleanup('shutdownNow')
  def clientThreads = java.util.concurrent.Executors.newFixedThreadPool(2)

  List<Socket> sockets = []

  def cleanup() {
    sockets*.close()
  }

  def "five hundred open watches are streamed by a handful of server threads, and each gets every event"() {
    given:
    server = KubernetesApiServer.builder().http().start()
    server.createObject(configMap('before', 10))
    def client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clientThreads).build()
    List<LineFeed> feeds = []

    when: "watches are opened one after another (each answered before the next is sent)"
    500.times {
      feeds << openWatch(client)
    }

    then: "they are all open, and no server thread is kept per watch"
    ApiServerSpecification.eventually { server.activeWatches() == 500 }
    serverThreads().size() < 20

    and: "each got the object that existed when it started"
    ApiServerSpecification.eventually { feeds.every { it.lines.size() == 1 } }
    feeds.every { it.lines.peek().contains('"ADDED"') && it.lines.peek().contains('"before"') }

    when:
    server.createObject(configMap('after', 10))

    then: "each gets the new one"
    ApiServerSpecification.eventually { feeds.every { it.lines.size() == 2 } }
    feeds.every { it.lines.toList()[1].contains('"after"') }

    when: "the server stops"
    server.stop()

    then: "every watch ends"
    ApiServerSpecification.eventually { feeds.every { it.completed } }
    server.activeWatches() == 0
  }

  def "clients that stop reading are cut off, and the other watches keep flowing meanwhile"() {
    given: "more stalled clients than the pump has writers"
    server = KubernetesApiServer.builder().http().watchStallTimeout(Duration.ofMillis(500)).start()
    def stalled = (1..WatchPump.WRITERS + 1).collect { stalledWatch() }
    def client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clientThreads).build()
    def reader = openWatch(client)
    assert ApiServerSpecification.eventually { server.activeWatches() == stalled.size() + 1 }

    when: "events far larger than the sockets can buffer are published"
    40.times { server.createObject(configMap("big-$it", 512 * 1024)) }

    then: "the reading watch gets all of them"
    ApiServerSpecification.eventually(30_000) { reader.lines.size() == 40 }

    and: "the stalled ones are ended on the server's side"
    ApiServerSpecification.eventually(15_000) { server.activeWatches() == 1 }

    when: "the stalled clients go away and one more object comes"
    sockets*.close()
    server.createObject(configMap('last', 10))

    then: "the reading watch still gets it"
    ApiServerSpecification.eventually { reader.lines.size() == 41 }
  }

  /** Opens a configmap watch; returns once the response head is in, its lines arriving later. */
  private LineFeed openWatch(HttpClient client) {
    def request = HttpRequest.newBuilder(URI.create(server.url() + '/api/v1/namespaces/default/configmaps?watch=true'))
        .build()
    def response = client.sendAsync(request, HttpResponse.BodyHandlers.ofPublisher()).get(10, TimeUnit.SECONDS)
    assert response.statusCode() == 200
    def feed = new LineFeed()
    response.body().subscribe(feed)
    feed
  }

  /** A watch over a raw socket with a tiny receive buffer, whose response is never read. */
  private Socket stalledWatch() {
    def socket = new Socket()
    socket.setReceiveBufferSize(4096)
    socket.connect(new InetSocketAddress(server.host(), server.port()))
    sockets << socket
    socket.outputStream.write(('GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\n' +
        "Host: ${server.host()}:${server.port()}\r\n\r\n").getBytes(StandardCharsets.US_ASCII))
    socket.outputStream.flush()
    socket
  }

  private static Set<String> serverThreads() {
    Thread.getAllStackTraces().keySet()*.name.findAll { it.startsWith('kube-api-test-server') } as Set
  }

  private static String configMap(String name, int bytes) {
    """{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"$name","namespace":"default"},
        "data":{"payload":"${'x' * bytes}"}}"""
  }

  /** Collects a streamed body's lines without a thread of its own. */
  @CompileStatic
  static class LineFeed implements Flow.Subscriber<List<ByteBuffer>> {
    final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>()
    final ByteArrayOutputStream partial = new ByteArrayOutputStream()
    volatile boolean completed

    @Override
    void onSubscribe(Flow.Subscription subscription) {
      subscription.request(Long.MAX_VALUE)
    }

    @Override
    void onNext(List<ByteBuffer> buffers) {
      for (ByteBuffer buffer : buffers) {
        while (buffer.hasRemaining()) {
          byte b = buffer.get()
          if (b == (byte) 10) {
            lines.add(new String(partial.toByteArray(), StandardCharsets.UTF_8))
            partial.reset()
          } else {
            partial.write(b)
          }
        }
      }
    }

    @Override
    void onError(Throwable throwable) {
      completed = true
    }

    @Override
    void onComplete() {
      completed = true
    }
  }
}
