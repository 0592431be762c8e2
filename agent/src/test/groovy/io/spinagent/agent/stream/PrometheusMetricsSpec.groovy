package io.spinagent.agent.stream

import com.google.protobuf.ByteString
import io.micrometer.prometheus.PrometheusConfig
import io.micrometer.prometheus.PrometheusMeterRegistry
import io.spinagent.agent.admin.PrometheusEndpoint
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import spock.lang.AutoCleanup
import spock.lang.Specification

class PrometheusMetricsSpec extends Specification {

  PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
  Outbox outbox = new Outbox(1 << 20)
  @AutoCleanup
  PrometheusEndpoint endpoint

  def "the stream's meters are served at /metrics under the documented names"() {
    given:
    def metrics = new StreamMetrics(registry, outbox)
    outbox.put('prod', ObjectChange.newBuilder().setKind(Kind.newBuilder().setKind('Pod').setVersion('v1').setPlural('pods'))
        .setName('p').setType(ChangeType.CHANGE_TYPE_UPSERT).setObjectJson(ByteString.copyFromUtf8('{}')).build())
    metrics.connected(true)
    metrics.reconnecting()
    metrics.acknowledged()
    metrics.sent(io.spinagent.protocol.v1.AgentMessage.newBuilder()
        .setHeartbeat(io.spinagent.protocol.v1.Heartbeat.newBuilder().setSentAtMillis(1)).build())
    metrics.received(io.spinagent.protocol.v1.PluginMessage.newBuilder()
        .setAck(io.spinagent.protocol.v1.Ack.newBuilder().setAccount('prod').setSequence(1)).build())
    metrics.sessionEnded(io.grpc.Status.UNAVAILABLE)
    endpoint = PrometheusEndpoint.start(0, registry)

    when:
    def connection = new URL("http://127.0.0.1:${endpoint.port()}/metrics").openConnection() as HttpURLConnection
    String body = connection.inputStream.text

    then:
    connection.responseCode == 200
    connection.contentType.startsWith('text/plain')
    body.contains('spinagent_agent_connected 1.0')
    body.contains('spinagent_agent_reconnects_total 1.0')
    body.contains('spinagent_agent_acks_received_total 1.0')
    body.contains('spinagent_agent_frames_sent_total{type="heartbeat",} 1.0')
    body.contains('spinagent_agent_frame_bytes_sent_total{type="heartbeat",}')
    body.contains('spinagent_agent_frames_received_total{type="ack",} 1.0')
    body.contains('spinagent_agent_frame_bytes_received_total{type="ack",}')
    body.contains('spinagent_agent_sessions_ended_total{code="UNAVAILABLE",} 1.0')
    body.contains('spinagent_agent_outbox_entries 1.0')
    body =~ /spinagent_agent_outbox_bytes [1-9]/
    body.contains('spinagent_agent_outbox_max_bytes 1048576.0')
    body.contains('spinagent_agent_outbox_blocked_puts_total 0.0')
    body.contains('spinagent_agent_outbox_blocked_seconds_total 0.0')
  }

  def "anything but /metrics is not found"() {
    given:
    endpoint = PrometheusEndpoint.start(0, registry)

    when:
    def connection = new URL("http://127.0.0.1:${endpoint.port()}/other").openConnection() as HttpURLConnection

    then:
    connection.responseCode == 404
  }
}
