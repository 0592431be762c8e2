package io.spinagent.plugin.tunnel

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.TUNNEL
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import com.fasterxml.jackson.databind.ObjectMapper
import com.google.protobuf.ByteString
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.grpc.RawAgent
import io.spinagent.plugin.http.RawHttp
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.TunnelEnd
import io.spinagent.protocol.v1.TunnelFrame
import io.spinagent.protocol.v1.TunnelResponseHead
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.time.Duration
import javax.net.ssl.SSLSocket
import spock.lang.AutoCleanup
import spock.lang.Specification

/**
 * What the tunnel does with clients that are too slow or too large before their request is even
 * read: each gets an HTTP answer with a Kubernetes Status naming the limit, then the connection
 * closes; nothing reaches the agent. Clients here speak raw HTTP over TLS, as a careless or hostile
 * one would.
 */
class TunnelLimitsSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  @AutoCleanup
  TunnelHttpServer tunnel

  Duration headerTimeout = Duration.ofSeconds(1)
  TunnelTokens tokens = new TunnelTokens()
  HttpClient http
  RawAgent agent

  def setup() {
    fixture.start()
    tunnel = TunnelHttpServer.start(new TunnelProperties(port: 0, headerTimeout: headerTimeout),
      new OperationsProperties(timeout: Duration.ofSeconds(10)), tokens, fixture.accounts, fixture.sessions)
    http = TrustingHttpClient.trusting(tunnel.caCertificatePem())
    agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
  }

  def "a client that does not send its request line and headers within spinagent.tunnel.header-timeout is answered 408 and disconnected"() {
    when: 'half a request line, then nothing'
    def answer = RawHttp.exchange(connect(), 'GET /clusters/prod/api/v1/po')

    then:
    answer.statusLine == 'HTTP/1.1 408 Request Timeout'
    answer.headers['connection'] == 'close'
    answer.status.code == 408
    answer.status.reason == 'RequestTimeout'
    answer.status.message == "the request's line and headers did not arrive within 1000 ms (spinagent.tunnel.header-timeout)"
    answer.closed
    agent.received.every { it.bodyCase != TUNNEL }
  }

  def "a client that stops in the middle of its headers is answered 408 as well"() {
    when:
    def answer = RawHttp.exchange(connect(), "GET /clusters/prod/api/v1/pods HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ")

    then:
    answer.status.code == 408
    answer.closed
    agent.received.every { it.bodyCase != TUNNEL }
  }

  def "headers far over spinagent.tunnel.max-header-size are answered 431 naming the limit, without reading them all"() {
    given: 'a megabyte of headers, as in a request an attacker or a broken script sends'
    def token = tokens.issue('prod')
    def request = "GET /clusters/prod/api/v1/pods HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer $token\r\n" +
      "X-Padding: ${'x' * (1024 * 1024)}\r\n\r\n"

    when:
    def answer = RawHttp.exchange(connect(), request)

    then:
    answer.statusLine == 'HTTP/1.1 431 Request Header Fields Too Large'
    answer.status.code == 431
    answer.status.reason == 'RequestHeaderFieldsTooLarge'
    answer.headers['connection'] == 'close'
    answer.status.message == "the request's headers are over the limit of 65536 bytes for the request line and" +
      " headers together (spinagent.tunnel.max-header-size)"
    answer.closed
    agent.received.every { it.bodyCase != TUNNEL }
  }

  def "curl, sending #size bytes of headers, gets the 431 and Connection: close"() {
    given: 'curl reads headers from a file: this is more than one command-line argument may hold'
    def dir = Files.createTempDirectory('tunnel-curl')
    def ca = dir.resolve('ca.pem')
    Files.writeString(ca, tunnel.caCertificatePem())
    def headers = dir.resolve('headers')
    Files.writeString(headers, "Authorization: Bearer ${tokens.issue('prod')}\nX-Padding: ${'x' * size}\n")

    when:
    def curl = new ProcessBuilder('curl', '--silent', '--show-error', '--max-time', '20', '--cacert', ca.toString(),
      '--header', "@$headers", '--dump-header', '-', '--output', '/dev/null',
      "https://127.0.0.1:${tunnel.port()}/clusters/prod/api/v1/pods").redirectErrorStream(true).start()
    def output = curl.inputStream.text
    curl.waitFor()

    then:
    output.readLines()[0] == 'HTTP/1.1 431 Request Header Fields Too Large'
    output.toLowerCase().contains('connection: close')
    curl.exitValue() == 0
    agent.received.every { it.bodyCase != TUNNEL }

    cleanup:
    dir?.toFile()?.deleteDir()

    where: 'curl sends 128 KiB of a request, then waits for an answer before it sends more; it sends at most 1 MiB of head'
    size << [100_000, 200_000, 900_000]
  }

  def "a request line and headers each within the limit but over it together are answered 431, and the connection closed"() {
    given:
    def token = tokens.issue('prod')
    def request = "GET /clusters/prod/api/v1/pods?labelSelector=${'a' * 40_000} HTTP/1.1\r\nHost: localhost\r\n" +
      "Authorization: Bearer $token\r\nX-Padding: ${'x' * 40_000}\r\n\r\n"

    when:
    def answer = RawHttp.exchange(connect(), request)

    then:
    answer.statusLine == 'HTTP/1.1 431 Request Header Fields Too Large'
    answer.headers['connection'] == 'close'
    answer.status.message ==~ /the request's line and headers are \d+ bytes, over the limit of 65536 bytes for the request line and headers together \(spinagent.tunnel.max-header-size\)/
    answer.closed
    agent.received.every { it.bodyCase != TUNNEL }
  }

  def "a request line far over the limit is answered 414"() {
    when:
    def answer = RawHttp.exchange(connect(), "GET /clusters/prod/api/v1/pods?labelSelector=${'a' * 200_000} HTTP/1.1\r\nHost: localhost\r\n\r\n")

    then:
    answer.status.code == 414
    answer.status.message == "the request line is over the limit of 65536 bytes for the request line and" +
      " headers together (spinagent.tunnel.max-header-size)"
    answer.closed
    agent.received.every { it.bodyCase != TUNNEL }
  }

  def "a watch that stays open much longer than the header timeout is not cut"() {
    given:
    def token = tokens.issue('prod')
    def watch = HttpRequest.newBuilder(URI.create(tunnel.clusterUrl('prod') + '/api/v1/pods?watch=true'))
      .header('Authorization', "Bearer $token").GET().build()

    when:
    def pending = http.sendAsync(watch, HttpResponse.BodyHandlers.ofInputStream())
    def head = agent.next(TUNNEL).tunnel
    agent.next(TUNNEL) // the end of the (empty) request body
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setResponseHead(TunnelResponseHead.newBuilder().setStatus(200))))
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8('{"type":"ADDED"}\n'))))
    def reader = new BufferedReader(new InputStreamReader(pending.get().body()))
    def first = reader.readLine()
    Thread.sleep(headerTimeout.multipliedBy(3).toMillis())
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8('{"type":"MODIFIED"}\n'))))
    def second = reader.readLine()
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setEnd(TunnelEnd.getDefaultInstance())))

    then:
    first == '{"type":"ADDED"}'
    second == '{"type":"MODIFIED"}'
    reader.readLine() == null
    pending.get().statusCode() == 200
    agent.received.every { !it.tunnel.hasCancel() }
  }

  def "a kept-alive connection serves one request after another"() {
    given:
    def token = tokens.issue('prod')
    def socket = connect()
    def request = "GET /clusters/prod/version HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer $token\r\n\r\n"

    when:
    RawHttp.send(socket, request)
    answerOnce()
    def first = RawHttp.readAnswer(socket.inputStream)
    RawHttp.send(socket, request)
    answerOnce()
    def second = RawHttp.readAnswer(socket.inputStream)

    then:
    first.statusLine == 'HTTP/1.1 200 OK'
    first.body == '{"major":"1"}'
    second.statusLine == 'HTTP/1.1 200 OK'

    cleanup:
    socket?.close()
  }

  def "a path outside /clusters/ is answered 404 and never relayed"() {
    when:
    def response = http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:${tunnel.port()}/api/v1/pods")).GET().build(),
      HttpResponse.BodyHandlers.ofString())
    def status = new ObjectMapper().readValue(response.body(), Map)

    then:
    response.statusCode() == 404
    status.kind == 'Status'
    status.message == 'the tunnel serves /clusters/<account>/… only, not /api/v1/pods'
    agent.received.every { it.bodyCase != TUNNEL }
  }

  /** Answers the next tunnel request with a small version document. */
  private void answerOnce() {
    def head = agent.next(TUNNEL).tunnel
    agent.next(TUNNEL)
    def body = '{"major":"1"}'
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setResponseHead(
      TunnelResponseHead.newBuilder().setStatus(200).setBodyLength(body.length()))))
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8(body))))
    agent.send(frame(head.streamId, TunnelFrame.newBuilder().setEnd(TunnelEnd.getDefaultInstance())))
  }

  private SSLSocket connect() {
    def socket = (SSLSocket) http.sslContext().socketFactory.createSocket('127.0.0.1', tunnel.port())
    socket.soTimeout = 30_000
    socket.startHandshake()
    socket
  }

  private static AgentMessage frame(long streamId, TunnelFrame.Builder frame) {
    AgentMessage.newBuilder().setTunnel(frame.setStreamId(streamId)).build()
  }
}
