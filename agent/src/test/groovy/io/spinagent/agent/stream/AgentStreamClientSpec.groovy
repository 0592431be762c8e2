package io.spinagent.agent.stream

import static io.spinagent.agent.Eventually.eventually
import static io.spinagent.agent.stream.OutboxSpec.DEPLOYMENT
import static io.spinagent.agent.stream.OutboxSpec.upsert

import io.grpc.Status
import io.grpc.inprocess.InProcessChannelBuilder
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountDefinition
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.ClusterIdentity
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ProtocolVersion
import io.spinagent.protocol.v1.Role
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import spock.lang.Specification
import spock.lang.Timeout

/**
 * The real stream client against {@link ChannelServer} (the plugin's end of the protocol) on gRPC's
 * in-process transport: the handshake, batches and acknowledgements, decisions, commands and
 * reconnecting, without sockets or TLS (those are {@link ClouddriverConnectionSpec}'s and the
 * agent process specs').
 */
@Timeout(60)
class AgentStreamClientSpec extends Specification {

  String name = "agent-stream-${UUID.randomUUID()}"
  ChannelServer channel = ChannelServer.inProcess(name)
  Outbox outbox = new Outbox(1 << 20)
  RecordingListener listener = new RecordingListener()
  AgentStreamClient client = AgentStreamClient.create(
      { streamThread -> ClouddriverConnection.over(InProcessChannelBuilder.forName(name), name, streamThread) },
      new BackoffConfig(Duration.ofMillis(50), 2, 0.2, Duration.ofMillis(200)),
      new AgentIdentity('test-agent', '1.2.3', 'zone-a'), outbox, listener, new SimpleMeterRegistry())

  def cleanup() {
    client.close()
    outbox.close()
    channel.close()
  }

  static AccountInfo account(String name) {
    AccountInfo.newBuilder().setName(name)
        .setCluster(ClusterIdentity.newBuilder().setApiServerHost('10.0.0.1:6443').setKubernetesVersion('v1.29.4'))
        .build()
  }

  def "Hello names the agent, both protocol versions and its accounts; Welcome's decisions take effect"() {
    when:
    client.start([account('a'), account('b')])

    then:
    eventually { client.connected }
    with(channel.hellos[0]) {
      agentId == 'test-agent'
      agentVersion == '1.2.3'
      zoneId == 'zone-a'
      protocolVersionsList == [ProtocolVersion.PROTOCOL_VERSION_1_VALUE, ProtocolVersion.PROTOCOL_VERSION_2_VALUE]
      accountsList*.name == ['a', 'b']
    }
    client.protocolVersion() == 1
    eventually { client.role('a') == Optional.of(Role.ROLE_CACHING) && client.role('b') == Optional.of(Role.ROLE_CACHING) }
    listener.replicas == ['test-replica']
    listener.decided*.account as Set == ['a', 'b'] as Set
  }

  def "the plugin's choice of protocol version 2 is what the client speaks"() {
    given:
    channel.protocolVersion = 2

    when:
    client.start([account('a')])

    then:
    eventually { client.protocolVersion() == 2 }
  }

  def "changes put into the outbox reach the plugin and leave the outbox once acknowledged"() {
    given:
    client.start([account('a')])
    eventually { client.role('a').present }

    when:
    outbox.put('a', upsert('web'))
    outbox.put('a', upsert('api'))

    then:
    eventually { channel.objects('a') == ['Deployment default/web', 'Deployment default/api'] as Set }
    client.awaitAcknowledged(Duration.ofSeconds(30))
    outbox.size() == 0
  }

  def "after the plugin ends the stream the client reconnects, announces its accounts again and resends what was not acknowledged"() {
    given: "a change the plugin receives but does not acknowledge"
    client.start([account('a')])
    eventually { client.role('a').present }
    channel.dropBatches = true
    outbox.put('a', upsert('web'))
    eventually { channel.batches.size() == 1 }
    channel.dropBatches = false

    when: "the replica goes away"
    channel.dropSessions()

    then: "the listener hears of it, a second session starts with the same accounts"
    eventually { listener.disconnects.any { it.code == Status.Code.UNAVAILABLE } }
    eventually { channel.hellos.size() == 2 }
    channel.hellos[1].accountsList*.name == ['a']
    eventually { client.connected }

    and: "the change is sent again and committed"
    eventually { channel.objects('a') == ['Deployment default/web'] as Set }
    client.awaitAcknowledged(Duration.ofSeconds(30))
    channel.sessionCount() == 2
  }

  def "a refused account is not streamed; accounts added later are announced and decided"() {
    given:
    client.start([account('a')])
    eventually { client.role('a').present }

    when: "Clouddriver refuses 'a'"
    channel.decide(AccountDecision.newBuilder().setAccount('a').setAccepted(false).setReason('test: conflict').build())

    then:
    eventually { client.role('a').empty }
    eventually { listener.decided.any { it.account == 'a' && !it.accepted && it.reason == 'test: conflict' } }

    then: "the outbox keeps none of its changes"
    outbox.put('a', upsert('web')) == 0

    when: "another account starts and changes"
    client.updateAccounts([account('a'), account('c')])

    then:
    eventually { client.role('c') == Optional.of(Role.ROLE_CACHING) }
    outbox.put('c', upsert('api')) > 0
    eventually { channel.objects('c') == ['Deployment default/api'] as Set }
    channel.batches*.account == ['c']
  }

  def "a resync request of version 2 reaches the listener for an account the client streams"() {
    given:
    channel.protocolVersion = 2
    client.start([account('a')])
    eventually { client.role('a').present }

    when:
    channel.requestResync('a', [DEPLOYMENT], 'test: gap')
    channel.requestResync('not-mine', [DEPLOYMENT], 'test: ignored')

    then:
    eventually { listener.resyncs == ['a Deployment test: gap'] }
  }

  def "a command the listener does not handle is answered as refused"() {
    given:
    client.start([account('a')])
    eventually { client.connected }

    when:
    def result = channel.add(AccountDefinition.newBuilder().setName('dynamic'))

    then:
    !result.ok
    result.error == 'this agent does not serve dynamic accounts'
  }

  /** Records what the client tells its listener, from the stream thread. */
  static class RecordingListener implements StreamListener {
    final List<String> replicas = new CopyOnWriteArrayList<>()
    final List<Status> disconnects = new CopyOnWriteArrayList<>()
    final List<AccountDecision> decided = new CopyOnWriteArrayList<>()
    final List<String> resyncs = new CopyOnWriteArrayList<>()

    @Override
    void connected(String replicaId, String sessionId) {
      replicas << replicaId
    }

    @Override
    void disconnected(Status status) {
      disconnects << status
    }

    @Override
    void accountDecided(AccountDecision decision) {
      decided << decision
    }

    @Override
    void resyncRequested(String account, List<Kind> kinds, String reason) {
      resyncs << "$account ${kinds*.kind.join(',')} $reason".toString()
    }
  }
}
