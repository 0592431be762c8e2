package io.spinagent.plugin.grpc

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.DECISIONS
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import com.google.protobuf.ByteString
import io.grpc.CallOptions
import io.grpc.ClientCall
import io.grpc.Grpc
import io.grpc.InsecureChannelCredentials
import io.grpc.Metadata
import io.grpc.MethodDescriptor
import io.grpc.Status
import io.spinagent.plugin.accounts.AccountLifecycleListener
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.InMemoryObjectStore.ObjectKey
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import org.springframework.util.unit.DataSize
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

class AgentSessionSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  PollingConditions eventually = new PollingConditions(timeout: 10)

  def "an agent registers its accounts, streams changes and gets them acknowledged"() {
    given:
    fixture.start()
    def agent = fixture.agent()

    when:
    agent.hello('agent-1', [account('prod')])
    def welcome = agent.next(WELCOME).welcome

    then:
    welcome.protocolVersion == 1
    welcome.replicaId == 'replica-under-test'
    welcome.heartbeatIntervalSeconds == 10
    welcome.accountsList*.account == ['prod']
    welcome.accountsList*.accepted == [true]
    welcome.accountsList*.role == [Role.ROLE_CACHING]
    welcome.accountsList*.resyncRequired == [true]
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVATING

    when:
    agent.upsert('prod', 1, 'web').upsert('prod', 2, 'api').delete('prod', 3, 'web')

    then:
    agent.awaitAck('prod', 3) == 3
    fixture.store.objects('prod').keySet() == [new ObjectKey('apps', 'Deployment', 'default', 'api')] as Set

    when: 'a complete listing of the kind arrives'
    agent.resync('prod', 4, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 5, 'api').resync('prod', 6, ResyncPhase.RESYNC_PHASE_END)
    agent.awaitAck('prod', 6)

    then:
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVE
    fixture.meters.get('spinagent.frames.received').tag('type', 'changes').counter().count() == 4
    fixture.meters.get('spinagent.changes.committed').counter().count() == 4
    fixture.meters.get('spinagent.agents.connected').gauge().value() == 1
  }

  def "one stream carries many accounts, each with its own sequence and acknowledgements"() {
    given:
    fixture.start()
    def agent = fixture.agent()

    when:
    def welcome = agent.hello('infra-agent', [account('eu-1', 'https://10.1.0.1:6443'), account('us-1', 'https://10.2.0.1:6443')])
      .next(WELCOME).welcome
    agent.upsert('eu-1', 7, 'web').upsert('us-1', 3, 'api').upsert('eu-1', 8, 'api')

    then:
    welcome.accountsList*.accepted == [true, true]
    agent.awaitAck('eu-1', 8) == 8
    agent.awaitAck('us-1', 3) == 3
    fixture.store.objects('eu-1').keySet()*.name() as Set == ['web', 'api'] as Set
    fixture.store.objects('us-1').keySet()*.name() == ['api']
    fixture.accounts.all()*.cachingAgentId() == ['infra-agent', 'infra-agent']
  }

  def "a change is acknowledged only once the sink has committed it"() {
    given:
    def commits = new CopyOnWriteArrayList<CompletableFuture<Void>>()
    fixture.sink = { SinkBatch batch ->
      def gate = new CompletableFuture<Void>()
      commits << gate
      gate.thenCompose { fixture.store.commit(batch) }
    } as ChangeSink
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when:
    agent.upsert('prod', 1, 'web')
    eventually.eventually { assert commits.size() == 1 }

    then: 'nothing is acknowledged while the commit is pending'
    agent.received.poll(300, TimeUnit.MILLISECONDS) == null
    fixture.store.objects('prod').isEmpty()

    when:
    commits[0].complete(null)

    then:
    agent.awaitAck('prod', 1) == 1
    fixture.store.objects('prod').size() == 1
  }

  def "replayed, stale and out-of-order changes never overwrite newer state"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
    def web = new ObjectKey('apps', 'Deployment', 'default', 'web')
    def api = new ObjectKey('apps', 'Deployment', 'default', 'api')

    when:
    agent.upsert('prod', 10, 'web', '500')
      .upsert('prod', 11, 'web', '300')           // older resourceVersion arriving later
      .upsert('prod', 10, 'web', '100')           // a replayed sequence
      .upsert('prod', 12, 'api', '600').delete('prod', 13, 'api', '700')
      .upsert('prod', 14, 'api', '650')           // older than the delete's tombstone
    agent.awaitAck('prod', 14)

    then:
    fixture.store.find('prod', web).get().resourceVersion() == '500'
    !fixture.store.find('prod', api).isPresent()
  }

  def "a complete listing sweeps objects it did not list, without emptying the account in between"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
    agent.upsert('prod', 1, 'kept').upsert('prod', 2, 'gone').awaitAck('prod', 2)

    when:
    agent.resync('prod', 3, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 4, 'kept').awaitAck('prod', 4)

    then: 'mid-listing, readers still see everything'
    fixture.store.objects('prod').size() == 2

    when:
    agent.resync('prod', 5, ResyncPhase.RESYNC_PHASE_END).awaitAck('prod', 5)

    then:
    fixture.store.objects('prod').keySet()*.name() == ['kept']
  }

  def "an agent speaking no protocol version the plugin knows is refused with the supported versions"() {
    given:
    fixture.start()
    def agent = fixture.agent()

    when:
    agent.hello('agent-future', [account('prod')], [7, 8])
    def status = agent.awaitClosed()

    then:
    status.code == Status.Code.FAILED_PRECONDITION
    status.description.contains('speaks protocol versions [7, 8], this plugin supports [1, 2]')
    fixture.sessions.size() == 0
  }

  def "a change before the handshake ends the session"() {
    given:
    fixture.start()
    def agent = fixture.agent()

    when:
    agent.upsert('prod', 1, 'web')
    def status = agent.awaitClosed()

    then:
    status.code == Status.Code.FAILED_PRECONDITION
    status.description == 'the first frame must be hello, got changes'
  }

  def "a change for an account the agent did not register ends that session and no other"() {
    given:
    fixture.start()
    def good = fixture.agent()
    good.hello('agent-good', [account('prod')]).next(WELCOME)
    def bad = fixture.agent()
    bad.hello('agent-bad', [account('staging', 'https://10.9.9.9:6443')]).next(WELCOME)

    when:
    bad.upsert('prod', 1, 'web')
    def status = bad.awaitClosed()

    then:
    status.code == Status.Code.FAILED_PRECONDITION
    status.description.startsWith("changes for account 'prod', which this agent did not register")

    when:
    good.upsert('prod', 1, 'web')

    then:
    good.awaitAck('prod', 1) == 1
    fixture.accounts.find('staging').get().state() == AccountState.ORPHANED
  }

  def "changes for an account deleted or switched off meanwhile are dropped for that account alone; the session goes on"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod'), account('dev', 'https://10.0.0.2:6443'),
                            account('qa', 'https://10.0.0.3:6443')]).next(WELCOME)

    when: 'the accounts go while the agent, not having heard yet, still sends their changes'
    fixture.accounts.delete('prod', 'deleted through the API')
    fixture.accounts.deactivate('qa')
    agent.upsert('prod', 1, 'web').upsert('qa', 1, 'web').upsert('dev', 1, 'web')

    then: 'the other account is stored and acknowledged, the late ones dropped and counted'
    agent.awaitAck('dev', 1) == 1
    fixture.store.objects('dev').size() == 1
    fixture.store.objects('prod').isEmpty()
    fixture.store.objects('qa').isEmpty()
    eventually.eventually {
      assert fixture.meters.get('spinagent.changes.dropped.late').counter().count() == 2
    }
    !agent.hasEnded()
  }

  def "an account claimed while switched off is streamed once switched on, in the same session"() {
    given: 'the account is switched off before the agent claims it'
    fixture.start()
    fixture.accounts.deactivate('prod')
    def agent = fixture.agent()
    def claimed = agent.hello('agent-1', [account('prod'), account('dev', 'https://10.0.0.2:6443')])
        .next(WELCOME).welcome
    assert claimed.accountsList*.accepted == [false, true]

    when: 'an operator switches it on, and the agent streams it as told'
    fixture.accounts.activate('prod')
    def granted = agent.next(DECISIONS).decisions.getAccounts(0)
    agent.upsert('prod', 1, 'web')

    then: 'its changes are stored and acknowledged; the session is not ended over them'
    granted.account == 'prod'
    granted.accepted
    granted.role == Role.ROLE_CACHING
    agent.awaitAck('prod', 1) == 1
    fixture.store.objects('prod').size() == 1
    !agent.hasEnded()
  }

  def "an account switched on just as its claim is refused is granted after the welcome, never before it"() {
    given: 'the account is switched off, and an operator switches it on as the claim refuses it'
    fixture.start()
    fixture.accounts.deactivate('prod')
    boolean switchedOn = false
    fixture.accounts.addListener({ account, previous ->
      if (account.name() == 'prod' && account.state() == AccountState.INACTIVE && !switchedOn) {
        switchedOn = true
        fixture.accounts.activate('prod')
      }
    } as AccountLifecycleListener)

    when:
    def agent = fixture.agent()
    def refused = agent.hello('agent-1', [account('prod')]).next(WELCOME).welcome.getAccounts(0)
    def granted = agent.next(DECISIONS).decisions.getAccounts(0)
    agent.upsert('prod', 1, 'web')

    then: 'the welcome answers the claim as it was decided, and the grant follows it'
    switchedOn
    !refused.accepted
    granted.accepted
    granted.role == Role.ROLE_CACHING

    and: 'the agent streams the account, as the registry expects'
    agent.awaitAck('prod', 1) == 1
    fixture.accounts.find('prod').get().cachingAgentId() == 'agent-1'
  }

  def "an account deleted while switched off is not granted again to the agent that claimed it"() {
    given: 'the agent claimed the account while it was switched off'
    fixture.start()
    fixture.accounts.deactivate('prod')
    def agent = fixture.agent()
    assert !agent.hello('agent-1', [account('prod')]).next(WELCOME).welcome.getAccounts(0).accepted

    when: 'the account is deleted'
    fixture.accounts.delete('prod', 'deleted through the API')

    then: 'the agent is told it is gone, and the registry does not hand the name back to it'
    !agent.next(DECISIONS).decisions.getAccounts(0).accepted
    fixture.accounts.find('prod').isEmpty()
    !agent.hasEnded()
  }

  def "a malformed change is refused with a message naming the field"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when:
    agent.changes('prod', [RawAgent.change(1, 'web', ChangeType.CHANGE_TYPE_UPSERT, '1', null)])
    def status = agent.awaitClosed()

    then:
    status.code == Status.Code.INVALID_ARGUMENT
    status.description == "changes for account 'prod', change 0 (web): an upsert needs object_json"
  }

  def "bytes that are not a protocol frame end only that call"() {
    given:
    fixture.start()
    def good = fixture.agent()
    good.hello('agent-good', [account('prod')]).next(WELCOME)
    def channel = Grpc.newChannelBuilder(fixture.target(), InsecureChannelCredentials.create()).build()
    def bytes = new MethodDescriptor.Marshaller<byte[]>() {
      InputStream stream(byte[] value) { new ByteArrayInputStream(value) }
      byte[] parse(InputStream stream) { stream.bytes }
    }
    def method = AgentChannelGrpc.connectMethod.toBuilder(bytes, bytes).build()
    def closed = new CompletableFuture<Status>()

    when:
    ClientCall<byte[], byte[]> call = channel.newCall(method, CallOptions.DEFAULT)
    call.start(new ClientCall.Listener<byte[]>() {
      void onClose(Status result, Metadata trailers) { closed.complete(result) }
    }, new Metadata())
    call.request(1)
    call.sendMessage([0xff, 0xff, 0xff, 0x01, 0x02] as byte[])
    def status = closed.get(10, TimeUnit.SECONDS)

    then:
    status.code != Status.Code.OK
    status.code == Status.Code.INVALID_ARGUMENT
    status.description.startsWith('frame is not a valid spinagent.v1.AgentMessage: ')

    when:
    good.upsert('prod', 1, 'web')

    then:
    good.awaitAck('prod', 1) == 1

    cleanup:
    channel?.shutdownNow()
  }

  def "a frame over the size limit is refused with RESOURCE_EXHAUSTED, other sessions carry on"() {
    given:
    fixture.properties.grpc.maxInboundMessageSize = DataSize.ofKilobytes(64)
    fixture.start()
    def good = fixture.agent()
    good.hello('agent-good', [account('prod')]).next(WELCOME)
    def big = fixture.agent()
    big.hello('agent-big', [account('big', 'https://10.1.1.1:6443')]).next(WELCOME)

    when:
    big.upsert('big', 1, 'huge', '1', '{"data":"' + ('x' * 100_000) + '"}')
    def status = big.awaitClosed()

    then:
    status.code == Status.Code.RESOURCE_EXHAUSTED
    status.description ==~ /frame of 1000[0-9]{2} bytes exceeds spinagent.grpc.max-inbound-message-size \(65536 bytes\)/

    when:
    good.upsert('prod', 1, 'web')

    then:
    good.awaitAck('prod', 1) == 1
  }

  def "a second agent with the same id is refused while the first carries on"() {
    given:
    fixture.start()
    def first = fixture.agent()
    first.hello('agent-1', [account('prod')]).next(WELCOME)
    def second = fixture.agent()

    when:
    second.hello('agent-1', [account('prod')])
    def status = second.awaitClosed()

    then:
    status.code == Status.Code.ALREADY_EXISTS
    status.description.startsWith("agent id 'agent-1' is already connected from /127.0.0.1:")

    when:
    first.upsert('prod', 1, 'web')

    then:
    first.awaitAck('prod', 1) == 1
    fixture.accounts.find('prod').get().cachingAgentId() == 'agent-1'
  }

  def "an account name claimed from another cluster is refused; replicas of the same cluster stand by and take over"() {
    given:
    fixture.start()
    def caching = fixture.agent()
    caching.hello('agent-a', [account('prod')]).next(WELCOME)

    when: 'another cluster claims the name'
    def impostor = fixture.agent()
    def refused = impostor.hello('agent-x', [account('prod', 'https://10.6.6.6:6443', 'cd' * 32)]).next(WELCOME).welcome.getAccounts(0)

    then:
    !refused.accepted
    refused.reason.startsWith("account name 'prod' belongs to another cluster (https://10.0.0.1:6443")

    when: 'the impostor streams the refused account anyway'
    impostor.upsert('prod', 1, 'evil')

    then:
    impostor.awaitClosed().code == Status.Code.FAILED_PRECONDITION

    when: 'a replica of the same cluster joins'
    def standby = fixture.agent()
    def decision = standby.hello('agent-b', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then:
    decision.accepted
    decision.role == Role.ROLE_STANDBY
    !decision.resyncRequired

    when: 'a standby streams (as one just handed over would, before it hears of it)'
    standby.upsert('prod', 1, 'web')

    then: 'its change is dropped, not stored, and the session goes on'
    eventually.eventually {
      assert fixture.meters.get('spinagent.changes.dropped.late').counter().count() == 1
    }
    fixture.store.objects('prod').isEmpty()
    !standby.hasEnded()

    when: 'the caching agent leaves'
    caching.complete()
    def promoted = standby.next(DECISIONS).decisions.getAccounts(0)

    then: 'the standby takes over and lists the account again'
    promoted.role == Role.ROLE_CACHING
    promoted.resyncRequired
    eventually.eventually {
      assert fixture.accounts.find('prod').get().cachingAgentId() == 'agent-b'
      assert fixture.accounts.find('prod').get().state() == AccountState.ACTIVATING
    }

    when:
    standby.upsert('prod', 2, 'web')

    then:
    standby.awaitAck('prod', 2) == 2
  }

  def "an agent refused a name another cluster held is given it once that account is deleted"() {
    given: 'two clusters claim the same name; the second is refused'
    fixture.start()
    def first = fixture.agent()
    first.hello('agent-a', [account('prod')]).next(WELCOME)
    def second = fixture.agent()
    def refused = second.hello('agent-x', [account('prod', 'https://10.6.6.6:6443', 'cd' * 32)]).next(WELCOME).welcome.getAccounts(0)
    assert !refused.accepted

    when: "the first cluster's agent leaves and its account is deleted through the API"
    first.complete()
    eventually.eventually {
      assert fixture.accounts.find('prod').get().state() == AccountState.ORPHANED
    }
    fixture.accounts.delete('prod', 'deleted through the API')
    def granted = second.next(DECISIONS).decisions.getAccounts(0)

    then: 'the refused agent is told, without reconnecting, that the account is its to stream'
    granted.account == 'prod'
    granted.accepted
    granted.role == Role.ROLE_CACHING
    eventually.eventually {
      assert fixture.accounts.find('prod').get().cachingAgentId() == 'agent-x'
    }

    when:
    second.upsert('prod', 1, 'web')

    then:
    second.awaitAck('prod', 1) == 1
    !second.hasEnded()
  }

  def "a silent agent is disconnected after three heartbeat intervals"() {
    given:
    fixture.properties.sessions.heartbeatInterval = java.time.Duration.ofMillis(200)
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when:
    def status = agent.awaitClosed()

    then: 'the account is released before the stream ends, so a reconnect finds it free'
    status.code == Status.Code.UNAVAILABLE
    status.description.startsWith('no frame from the agent for')
    fixture.accounts.find('prod').get().state() == AccountState.ORPHANED
  }
}
