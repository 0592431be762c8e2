package io.spinagent.plugin.tunnel

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.TUNNEL
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import com.fasterxml.jackson.databind.ObjectMapper
import com.google.protobuf.ByteString
import io.spinagent.plugin.accounts.AccountMember
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.grpc.RawAgent
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.Header
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.TunnelEnd
import io.spinagent.protocol.v1.TunnelFrame
import io.spinagent.protocol.v1.TunnelResponseHead
import io.spinagent.protocol.v1.TunnelWindow
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import org.springframework.util.unit.DataSize
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The tunnel between Clouddriver's HTTP clients and an agent, with a hand-driven agent on the
 * other end: what goes over the stream, credit, and every way a request can fail.
 */
class TunnelSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  @AutoCleanup
  TunnelHttpServer tunnel

  TunnelTokens tokens = new TunnelTokens()
  TunnelProperties tunnelProperties = new TunnelProperties(port: 0, window: DataSize.ofKilobytes(64))
  OperationsProperties operations = new OperationsProperties(timeout: Duration.ofSeconds(2))
  HttpClient http
  PollingConditions eventually = new PollingConditions(timeout: 10)
  RawAgent agent

  def setup() {
    fixture.start()
    tunnel = TunnelHttpServer.start(tunnelProperties, operations, tokens, fixture.accounts, fixture.sessions)
    http = TrustingHttpClient.trusting(tunnel.caCertificatePem())
    agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
  }

  def "a request goes to the account's agent and its answer comes back, without the tunnel token"() {
    given:
    def token = tokens.issue('prod')

    when:
    def pending = http.sendAsync(get('/api/v1/namespaces/default/pods?limit=5', token), HttpResponse.BodyHandlers.ofString())
    def head = agent.next(TUNNEL).tunnel
    def headers = head.requestHead.headersList.collectEntries { [(it.name.toLowerCase()): it.valuesList] }
    agent.next(TUNNEL) // the end of the (empty) request body
    respond(head.streamId, 200, '{"kind":"PodList","items":[]}')
    def response = pending.get()

    then:
    head.requestHead.account == 'prod'
    head.requestHead.method == 'GET'
    head.requestHead.path == '/api/v1/namespaces/default/pods'
    head.requestHead.query == 'limit=5'
    head.requestHead.initialWindow == 64 * 1024
    head.requestHead.withoutBody
    headers['accept'] == ['application/json']
    !headers.containsKey('authorization')
    response.statusCode() == 200
    response.body() == '{"kind":"PodList","items":[]}'
    response.headers().firstValue('Content-Type').get() == 'application/json'
  }

  def "a request body larger than the credit flows in chunks as the agent grants credit"() {
    given:
    def token = tokens.issue('prod')
    byte[] manifest = new byte[300 * 1024]
    new Random(7).nextBytes(manifest)

    when:
    def pending = http.sendAsync(HttpRequest.newBuilder(uri('/apis/apps/v1/namespaces/default/deployments', 'prod'))
      .header('Authorization', "Bearer $token").POST(HttpRequest.BodyPublishers.ofByteArray(manifest)).build(),
      HttpResponse.BodyHandlers.ofString())
    def head = agent.next(TUNNEL).tunnel
    assert !head.requestHead.withoutBody
    def received = new ByteArrayOutputStream()
    while (true) {
      grant(head.streamId, 100 * 1024)
      def frame = agent.next(TUNNEL).tunnel
      if (frame.hasEnd()) {
        break
      }
      frame.body.writeTo(received)
      while (agent.received.peek()?.tunnel?.hasBody()) {
        agent.received.poll().tunnel.body.writeTo(received)
      }
      if (received.size() == manifest.length) {
        assert agent.next(TUNNEL).tunnel.hasEnd()
        break
      }
    }
    respond(head.streamId, 201, '{"kind":"Deployment"}')

    then:
    received.toByteArray() == manifest
    pending.get().statusCode() == 201
  }

  def "an answer of declared length goes to the client with that Content-Length, one of unknown length in chunks"() {
    given:
    def token = tokens.issue('prod')
    def json = '{"kind":"Deployment","metadata":{"name":"frontend"}}'

    when:
    def declared = http.sendAsync(get('/apis/apps/v1/namespaces/default/deployments/frontend', token),
      HttpResponse.BodyHandlers.ofString())
    def head = agent.next(TUNNEL).tunnel
    agent.next(TUNNEL)
    respond(head.streamId, 200, json, json.length())
    def unknown = http.sendAsync(get('/apis/apps/v1/namespaces/default/deployments/frontend', token),
      HttpResponse.BodyHandlers.ofString())
    head = agent.next(TUNNEL).tunnel
    agent.next(TUNNEL)
    respond(head.streamId, 200, json)

    then:
    with(declared.get()) {
      statusCode() == 200
      body() == json
      headers().firstValue('Content-Length').get() == "${json.length()}"
      headers().firstValue('Transfer-Encoding').isEmpty()
    }
    with(unknown.get()) {
      statusCode() == 200
      body() == json
      headers().firstValue('Transfer-Encoding').get() == 'chunked'
    }
  }

  def "a watch streams as the agent writes, never more than the credit ahead of the reader"() {
    given:
    def token = tokens.issue('prod')

    when:
    def pending = http.sendAsync(get('/api/v1/pods?watch=true', token), HttpResponse.BodyHandlers.ofInputStream())
    def head = agent.next(TUNNEL).tunnel
    agent.next(TUNNEL)
    agent.send(tunnel(head.streamId, TunnelFrame.newBuilder().setResponseHead(TunnelResponseHead.newBuilder().setStatus(200))))
    def reader = new BufferedReader(new InputStreamReader(pending.get().body()))
    agent.send(tunnel(head.streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8('{"type":"ADDED"}\n'))))

    then: 'the first event reaches the client while the watch is still open'
    reader.readLine() == '{"type":"ADDED"}'

    when: 'the agent fills the credit and the client reads it all'
    int event = 40 * 1024
    2.times { agent.send(tunnel(head.streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8('x' * (event - 1) + '\n')))) }
    2.times { assert reader.readLine().length() == event - 1 }

    then: 'the plugin gives the credit back'
    agent.next(TUNNEL).tunnel.window.bytes >= 32 * 1024

    when: 'the client goes away while events keep coming'
    reader.close()
    String cancelled = null
    for (int i = 0; i < 100 && cancelled == null; i++) {
      agent.send(tunnel(head.streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8('{"type":"MODIFIED"}\n'))))
      def frame = agent.received.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS)
      if (frame?.tunnel?.hasCancel()) {
        cancelled = frame.tunnel.cancel.reason
      }
    }

    then: 'the agent is told to stop the request'
    cancelled == 'the client closed the connection'
  }

  def "requests that cannot reach a cluster fail with a Kubernetes Status naming the cause"() {
    given:
    def token = tokens.issue('prod')
    def ghost = new AccountMember() {
      String agentId() { 'ghost' }
      String sessionId() { 'ghost-session' }
      String principal() { 'anonymous' }
      void decisionChanged(AccountDecision decision) {}
    }
    fixture.accounts.claim(ghost, account('orphan', 'https://10.5.5.5:6443'))
    fixture.accounts.release(ghost)
    def orphanToken = tokens.issue('orphan')

    expect:
    failure(get('/api/v1/pods', 'wrong'), 401) == "the tunnel token for account 'prod' is missing or wrong"
    failure(get('/api/v1/pods', token, 'nowhere'), 404) == "no SpinAgent account named 'nowhere'"
    failure(get('/api/v1/pods', orphanToken, 'orphan'), 503).startsWith("account 'orphan' has no connected agent")
    failure(HttpRequest.newBuilder(uri('/api/v1/secrets', 'prod')).header('Authorization', "Bearer $token")
      .header('X-Padding', 'x' * 100_000).GET().build(), 431) ==
      "the request's headers are over the limit of 65536 bytes for the request line and headers together (spinagent.tunnel.max-header-size)"

    when: 'the agent never answers'
    def pending = http.sendAsync(get('/api/v1/pods', token), HttpResponse.BodyHandlers.ofString())
    def head = agent.next(TUNNEL).tunnel
    def response = pending.get()

    then:
    response.statusCode() == 504
    new ObjectMapper().readValue(response.body(), Map).message ==
      "no answer from account 'prod' through agent 'agent-1' within 2s (spinagent.operations.timeout)"
    agent.next(TUNNEL).tunnel.hasEnd()
    agent.next(TUNNEL).tunnel.cancel.reason == 'timed out'
    head.requestHead.path == '/api/v1/pods' // the oversized request never reached the agent
  }

  def "an agent that disconnects mid-request fails the request"() {
    given:
    def token = tokens.issue('prod')

    when:
    def pending = http.sendAsync(get('/api/v1/pods', token), HttpResponse.BodyHandlers.ofString())
    agent.next(TUNNEL)
    agent.close()
    def response = pending.get()

    then:
    response.statusCode() == 502
    new ObjectMapper().readValue(response.body(), Map).message.startsWith("agent 'agent-1' disconnected")
  }

  private void respond(long streamId, int status, String body, Long bodyLength = null) {
    def responseHead = TunnelResponseHead.newBuilder().setStatus(status)
      .addHeaders(Header.newBuilder().setName('Content-Type').addValues('application/json'))
    if (bodyLength != null) {
      responseHead.setBodyLength(bodyLength)
    }
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setResponseHead(responseHead)))
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8(body))))
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setEnd(TunnelEnd.getDefaultInstance())))
  }

  private void grant(long streamId, int bytes) {
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setWindow(TunnelWindow.newBuilder().setBytes(bytes))))
  }

  private static AgentMessage tunnel(long streamId, TunnelFrame.Builder frame) {
    AgentMessage.newBuilder().setTunnel(frame.setStreamId(streamId)).build()
  }

  private String failure(HttpRequest request, int expectedStatus) {
    def response = http.send(request, HttpResponse.BodyHandlers.ofString())
    assert response.statusCode() == expectedStatus
    def status = new ObjectMapper().readValue(response.body(), Map)
    assert status.kind == 'Status' && status.code == expectedStatus
    status.message
  }

  private HttpRequest get(String path, String token, String account = 'prod') {
    HttpRequest.newBuilder(uri(path, account)).header('Authorization', "Bearer $token").header('Accept', 'application/json').GET().build()
  }

  private URI uri(String path, String account) {
    URI.create(tunnel.clusterUrl(account) + path)
  }
}
