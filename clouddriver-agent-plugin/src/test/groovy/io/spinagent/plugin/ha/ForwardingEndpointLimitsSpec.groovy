package io.spinagent.plugin.ha

import com.sun.net.httpserver.HttpExchange
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.http.RawHttp
import io.spinagent.testkit.tls.TestPki
import java.nio.charset.StandardCharsets
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import javax.net.ssl.SSLSocket
import org.springframework.util.unit.DataSize
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir
import spock.lang.Unroll
import spock.util.concurrent.PollingConditions

/**
 * What the forwarding endpoint between replicas does with peers that are too slow or too large:
 * each gets an HTTP answer with a Kubernetes Status naming its {@code spinagent.ha.*} setting, and
 * nothing reaches the tunnel or the account commands. Peers here speak raw HTTP over the replicas'
 * TLS, as a hostile client that reached the port would.
 */
class ForwardingEndpointLimitsSpec extends Specification {

  static final String SECRET = 'replicas-only-91fe'

  @Shared @TempDir Path pkiDir
  @Shared TestPki pki = TestPki.create('replicas CA')
  @Shared TestPki.Issued.PemFiles replicaTls

  @AutoCleanup ForwardingEndpoint endpoint
  List<String> commandsServed = new CopyOnWriteArrayList<>()
  PollingConditions eventually = new PollingConditions(timeout: 10, delay: 0.05)

  def setupSpec() {
    replicaTls = pki.issueServer('clouddriver').written(pkiDir, 'replica')
  }

  @Unroll
  def "a peer that never finishes its headers is answered 408 naming spinagent.ha.header-timeout, and disconnected (TLS: #tls)"() {
    given:
    start(tls)

    when: 'a request line and part of the headers, then nothing'
    def answer = RawHttp.exchange(connect(tls), "POST /commands HTTP/1.1\r\nHost: replica-b\r\n$ForwardingEndpoint.SECRET_HEADER: ")

    then:
    answer.statusLine == 'HTTP/1.1 408 Request Timeout'
    answer.headers['connection'] == 'close'
    answer.status.code == 408
    answer.status.reason == 'RequestTimeout'
    answer.status.message == "the request's line and headers did not arrive within 1000 ms (spinagent.ha.header-timeout)"
    answer.closed
    commandsServed.isEmpty()

    where:
    tls << [true, false]
  }

  @Unroll
  def "a request over spinagent.ha.max-header-size (#what) is answered 431 naming the setting, and the connection closed"() {
    given:
    start(true)

    when:
    def answer = RawHttp.exchange(connect(true), command('{}', "X-Padding: ${'x' * size}\r\n", query))

    then:
    answer.statusLine == 'HTTP/1.1 431 Request Header Fields Too Large'
    answer.headers['connection'] == 'close'
    answer.status.reason == 'RequestHeaderFieldsTooLarge'
    answer.status.message ==~ message
    answer.closed
    commandsServed.isEmpty()

    where:
    what                                        | size        | query        || message
    'headers of 12Ki'                           | 12 * 1024   | ''           || /the request's headers are over the limit of 8192 bytes for the request line and headers together \(spinagent.ha.max-header-size\)/
    'headers of 1Mi'                            | 1024 * 1024 | ''           || /the request's headers are over the limit of 8192 bytes for the request line and headers together \(spinagent.ha.max-header-size\)/
    'a line and headers, each within, together' | 5 * 1024    | 'q' * 5_000  || /the request's line and headers are \d+ bytes, over the limit of 8192 bytes for the request line and headers together \(spinagent.ha.max-header-size\)/
  }

  def "a request line far over the limit is answered 414, and the connection closed"() {
    given:
    start(true)

    when:
    def answer = RawHttp.exchange(connect(true), "GET /clusters/prod/api/v1/pods?labelSelector=${'a' * 100_000} HTTP/1.1\r\nHost: replica-b\r\n\r\n")

    then:
    answer.status.code == 414
    answer.status.message == 'the request line is over the limit of 8192 bytes for the request line and headers together (spinagent.ha.max-header-size)'
    answer.closed
  }

  @Unroll
  def "POST /commands with the body #body is answered 400 with a Status, and no command runs"() {
    given:
    start(true)
    def socket = connect(true)

    when:
    RawHttp.send(socket, command(body))
    def answer = RawHttp.readAnswer(socket.inputStream)

    then:
    answer.statusLine == 'HTTP/1.1 400 Bad Request'
    answer.status.reason == 'BadRequest'
    answer.status.message.startsWith("an account command is a JSON object; this one is $problem")
    commandsServed.isEmpty()

    when: 'the connection serves the next request'
    RawHttp.send(socket, command('{"kind":"DELETE"}'))
    def next = RawHttp.readAnswer(socket.inputStream)

    then:
    next.body == 'read 17 bytes'

    cleanup:
    socket?.close()

    where:
    body       || problem
    'null'     || 'null'
    '[]'       || 'array'
    '"x"'      || 'string'
    ''         || 'empty'
    '{"kind":' || 'not JSON: '
  }

  def "a body that declares more than spinagent.ha.max-request-body is answered 413 before any handler runs, and the connection closed"() {
    given:
    start(true)

    when:
    def answer = RawHttp.exchange(connect(true), command('x' * 100_000))

    then:
    answer.statusLine == 'HTTP/1.1 413 Request Entity Too Large'
    answer.status.reason == 'RequestEntityTooLarge'
    answer.status.message == 'the request body is 100000 bytes, over the limit of 65536 bytes (spinagent.ha.max-request-body)'
    answer.closed
    commandsServed.isEmpty()
  }

  def "a chunked body that grows past spinagent.ha.max-request-body is answered 413 although it began to be read"() {
    given:
    start(true)
    def chunk = 'x' * 40_000
    def head = "POST /commands HTTP/1.1\r\nHost: replica-b\r\n$ForwardingEndpoint.SECRET_HEADER: $SECRET\r\n" +
      "Transfer-Encoding: chunked\r\n\r\n"
    def chunked = head + (1..3).collect { Integer.toHexString(chunk.length()) + "\r\n$chunk\r\n" }.join('') + "0\r\n\r\n"

    when:
    def answer = RawHttp.exchange(connect(true), chunked)

    then:
    answer.statusLine == 'HTTP/1.1 413 Request Entity Too Large'
    answer.status.message == 'the request body is over the limit of 65536 bytes (spinagent.ha.max-request-body)'
    answer.closed
    commandsServed.isEmpty()
  }

  def "requests within the limits are served one after another on a kept-alive connection"() {
    given:
    start(true)
    def socket = connect(true)
    def body = '{"padding": "' + 'y' * 59_985 + '"}'

    when:
    RawHttp.send(socket, command(body))
    def first = RawHttp.readAnswer(socket.inputStream)
    RawHttp.send(socket, command('{}'))
    def second = RawHttp.readAnswer(socket.inputStream)

    then:
    first.statusLine == 'HTTP/1.1 200 OK'
    first.body == 'read 60000 bytes'
    second.body == 'read 2 bytes'
    commandsServed == ['read 60000 bytes', 'read 2 bytes']

    cleanup:
    socket?.close()
  }

  def "a client without TLS is refused at the TLS endpoint's handshake, and nothing is served"() {
    given:
    start(true)
    def socket = connect(false)
    socket.soTimeout = 10_000

    when:
    RawHttp.send(socket, command('{}'))
    def answered = socket.inputStream.readAllBytes()

    then: 'no HTTP answer, only the end of the connection (perhaps after a TLS alert)'
    !new String(answered, StandardCharsets.ISO_8859_1).contains('HTTP/1.1')
    commandsServed.isEmpty()

    cleanup:
    socket?.close()
  }

  def "its threads are named after it, and none is left once it is closed"() {
    given:
    start(true)

    when: 'a request is served'
    def socket = connect(true)
    RawHttp.send(socket, command('{}'))
    def answer = RawHttp.readAnswer(socket.inputStream)
    socket.close()

    then:
    answer.body == 'read 2 bytes'
    threads('spinagent-forwarding-io-') > 0
    threads('spinagent-forwarded-') > 0

    when:
    endpoint.close()

    then:
    eventually.eventually {
      assert threads('spinagent-forwarding-io-') == 0
      assert threads('spinagent-forwarded-') == 0
    }
  }

  private void start(boolean tls) {
    def properties = new HaProperties(sharedSecret: SECRET, address: '127.0.0.1', advertiseAddress: '127.0.0.1', port: 0,
      headerTimeout: Duration.ofSeconds(1), maxHeaderSize: DataSize.ofKilobytes(8), maxRequestBody: DataSize.ofKilobytes(64))
    if (tls) {
      properties.tls.enabled = true
      properties.tls.certificateChain = replicaTls.certificateChain()
      properties.tls.privateKey = replicaTls.privateKey()
    }
    endpoint = ForwardingEndpoint.start(properties, new SimpleMeterRegistry())
    endpoint.serveCommandsWith { HttpExchange exchange -> serveCommand(exchange) }
  }

  /** Reads the whole body and answers how much it read; remembers what it did. */
  private void serveCommand(HttpExchange exchange) {
    exchange.withCloseable {
      String outcome
      try {
        outcome = "read ${exchange.requestBody.readAllBytes().length} bytes"
      } catch (IOException e) {
        commandsServed << "failed: ${e.message}".toString()
        throw e
      }
      commandsServed << outcome
      def bytes = outcome.getBytes(StandardCharsets.UTF_8)
      exchange.sendResponseHeaders(200, bytes.length)
      exchange.responseBody.write(bytes)
    }
  }

  private static String command(String body, String extraHeaders = '', String query = '') {
    "POST /commands${query ? '?' + query : ''} HTTP/1.1\r\nHost: replica-b\r\n$ForwardingEndpoint.SECRET_HEADER: $SECRET\r\n$extraHeaders" +
      "Content-Type: application/json\r\nContent-Length: ${body.length()}\r\n\r\n$body"
  }

  private Socket connect(boolean tls) {
    def port = URI.create(endpoint.url()).port
    if (!tls) {
      def socket = new Socket('127.0.0.1', port)
      socket.soTimeout = 30_000
      return socket
    }
    def socket = (SSLSocket) pki.clientContext().socketFactory.createSocket('127.0.0.1', port)
    socket.soTimeout = 30_000
    socket.startHandshake()
    socket
  }

  private static int threads(String prefix) {
    Thread.allStackTraces.keySet().count { it.name.startsWith(prefix) && it.alive } as int
  }
}
