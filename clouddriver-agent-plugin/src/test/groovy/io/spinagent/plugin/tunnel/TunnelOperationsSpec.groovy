package io.spinagent.plugin.tunnel

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.TUNNEL
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import com.google.protobuf.ByteString
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.grpc.RawAgent
import io.spinagent.plugin.tunnel.history.InMemoryOperationHistory
import io.spinagent.plugin.tunnel.history.OperationQuery
import io.spinagent.plugin.tunnel.history.OperationRecorder
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.Header
import io.spinagent.protocol.v1.TunnelEnd
import io.spinagent.protocol.v1.TunnelFrame
import io.spinagent.protocol.v1.TunnelResponseHead
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/** Every request the tunnel serves, relayed or refused, reaches the operation history of its replica. */
class TunnelOperationsSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  @AutoCleanup
  TunnelHttpServer tunnel

  InMemoryOperationHistory history = new InMemoryOperationHistory(100)
  TunnelTokens tokens = new TunnelTokens()
  PollingConditions eventually = new PollingConditions(timeout: 10)
  HttpClient http
  RawAgent agent

  def setup() {
    fixture.start()
    tunnel = TunnelHttpServer.start(new TunnelProperties(port: 0), new OperationsProperties(timeout: Duration.ofSeconds(5)),
      tokens, fixture.accounts, fixture.sessions, new OperationRecorder(history, 'replica-a'))
    http = TrustingHttpClient.trusting(tunnel.caCertificatePem())
    agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
  }

  def "relayed and refused requests are recorded with verb, status, durations, replica and agent"() {
    given:
    def token = tokens.issue('prod')

    when: 'a list is relayed and answered'
    def pending = http.sendAsync(request('/apis/apps/v1/namespaces/default/deployments?limit=500', token),
      HttpResponse.BodyHandlers.ofString())
    def head = agent.next(TUNNEL).tunnel
    agent.next(TUNNEL) // the end of the request body
    respond(head.streamId, 200, '{"kind":"DeploymentList","items":[]}')

    then:
    pending.get().statusCode() == 200

    when: 'two are refused by the tunnel itself'
    http.send(request('/api/v1/namespaces/default/pods/web', 'wrong'), HttpResponse.BodyHandlers.ofString())
    http.send(request('/api/v1/pods', token, 'nowhere'), HttpResponse.BodyHandlers.ofString())

    then:
    eventually.eventually { assert all().size() == 3 }
    with(all()[2]) {
      account() == 'prod'
      method() == 'GET'
      verb() == 'list'
      path() == '/apis/apps/v1/namespaces/default/deployments?limit=500'
      status() == 200
      replica() == 'replica-a'
      agentId() == 'agent-1'
      timeToFirstByteMs() <= durationMs()
    }
    with(all()[1]) {
      verb() == 'get'
      status() == 401
      agentId() == ''
    }
    with(all()[0]) {
      account() == 'nowhere'
      status() == 404
    }
  }

  private List all() {
    history.find(new OperationQuery(null, null, null, 0, 100)).operations()
  }

  private void respond(long streamId, int status, String body) {
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setResponseHead(TunnelResponseHead.newBuilder().setStatus(status)
      .addHeaders(Header.newBuilder().setName('Content-Type').addValues('application/json')))))
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setBody(ByteString.copyFromUtf8(body))))
    agent.send(tunnel(streamId, TunnelFrame.newBuilder().setEnd(TunnelEnd.getDefaultInstance())))
  }

  private static AgentMessage tunnel(long streamId, TunnelFrame.Builder frame) {
    AgentMessage.newBuilder().setTunnel(frame.setStreamId(streamId)).build()
  }

  private HttpRequest request(String pathAndQuery, String token, String account = 'prod') {
    HttpRequest.newBuilder(URI.create(tunnel.clusterUrl(account) + pathAndQuery))
      .header('Authorization', "Bearer $token").header('Accept', 'application/json').GET().build()
  }
}
