package io.spinagent.plugin.grpc

import static io.spinagent.plugin.grpc.RawAgent.DEPLOYMENT
import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.plugin.grpc.RawAgent.change
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.ACK
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.DECISIONS
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.HEARTBEAT
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.RESYNC_REQUEST
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.grpc.Status
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.InMemoryObjectStore.ObjectKey
import io.spinagent.plugin.cache.ResumePoints
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.ChangeBatch
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Heartbeat
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.RefusedChange
import io.spinagent.protocol.v1.ResyncMarker
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import io.spinagent.protocol.v1.WatchProgress
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/** The plugin's side of protocol version 2, frame by frame. */
class ProtocolVersion2Spec extends Specification {

  static final Kind SERVICE = Kind.newBuilder()
    .setVersion('v1').setKind('Service').setPlural('services').setNamespaced(true).build()

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  PollingConditions eventually = new PollingConditions(timeout: 10)

  def setup() {
    fixture.resumePoints = fixture.store
  }

  def "version 2 is chosen when the agent offers it; version 1 agents keep version 1"() {
    given:
    fixture.start()

    expect:
    fixture.agent().hello('new-agent', [account('a')], [1, 2]).next(WELCOME).welcome.protocolVersion == 2
    fixture.agent().hello('old-agent', [account('b')], [1]).next(WELCOME).welcome.protocolVersion == 1
  }

  def "markers and watch progress travel inside a batch and are applied in sequence order"() {
    given:
    fixture.start()
    def agent = fixture.agent().hello('agent-1', [account('prod')], [1, 2])
    def decision = agent.next(WELCOME).welcome.getAccounts(0)

    expect: 'nothing is resumable yet, so the kind is listed, but no longer because resync is required'
    decision.role == Role.ROLE_CACHING
    !decision.resyncRequired
    decision.resumePointsList.isEmpty()
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVATING

    when: 'a listing in one batch, its parts out of order in the frame'
    agent.send(batch('prod',
      [change(2, 'web', ChangeType.CHANGE_TYPE_UPSERT, '40', json('web', '40')),
       change(3, 'api', ChangeType.CHANGE_TYPE_UPSERT, '41', json('api', '41'))],
      [marker(4, ResyncPhase.RESYNC_PHASE_END), marker(1, ResyncPhase.RESYNC_PHASE_BEGIN)],
      [progress(5, DEPLOYMENT, '41')]))

    then:
    agent.awaitAck('prod', 5) == 5
    fixture.store.objects('prod').keySet()*.name() as Set == ['web', 'api'] as Set
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVE
    fixture.store.of(['prod'])['prod']*.resourceVersion == ['41']
    fixture.meters.find('spinagent.frames.received').tag('type', 'resync').counter() == null
  }

  def "a reconnecting agent gets the committed progress as resume points, and resumed kinds need no listing"() {
    given:
    fixture.start()
    def first = fixture.agent().hello('agent-1', [account('prod', 'https://10.0.0.1:6443', 'ab' * 32, [DEPLOYMENT, SERVICE])], [1, 2])
    first.next(WELCOME)
    first.send(batch('prod', [change(1, 'web', ChangeType.CHANGE_TYPE_UPSERT, '7', json('web', '7'))], [],
      [progress(2, DEPLOYMENT, '9')]))
    first.awaitAck('prod', 2)
    first.complete()
    first.awaitClosed()
    eventually.eventually { assert fixture.sessions.size() == 0 }

    when:
    def second = fixture.agent().hello('agent-1', [account('prod', 'https://10.0.0.1:6443', 'ab' * 32, [DEPLOYMENT, SERVICE])], [1, 2])
    def decision = second.next(WELCOME).welcome.getAccounts(0)

    then: 'the deployments resume from 9; the services, never reported, still need a listing'
    !decision.resyncRequired
    decision.resumePointsList*.kind*.kind == ['Deployment']
    decision.resumePointsList*.resourceVersion == ['9']
    decision.getResumePoints(0).committedAtMillis > 0
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVATING

    when: 'the services are listed'
    second.send(batch('prod', [], [marker(10, ResyncPhase.RESYNC_PHASE_BEGIN, SERVICE), marker(11, ResyncPhase.RESYNC_PHASE_END, SERVICE)], []))
    second.awaitAck('prod', 11)

    then:
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVE
    fixture.store.objects('prod').keySet() == [new ObjectKey('apps', 'Deployment', 'default', 'web')] as Set
  }

  def "when the resume points cannot be read, the agent is told to list every kind"() {
    given:
    fixture.resumePoints = { names -> throw new IllegalStateException('database unreachable') } as ResumePoints
    fixture.start()

    when:
    def decision = fixture.agent().hello('agent-1', [account('prod')], [1, 2]).next(WELCOME).welcome.getAccounts(0)

    then:
    decision.accepted
    decision.resyncRequired
    decision.resumePointsList.isEmpty()
  }

  def "the plugin sends heartbeats on its own, also while it does not read the agent's frames"() {
    given: 'a sink that holds every commit, and a session that reads one batch ahead'
    def held = new CopyOnWriteArrayList<CompletableFuture<Void>>()
    fixture.sink = { SinkBatch batch ->
      def gate = new CompletableFuture<Void>()
      held << gate
      gate.thenCompose { fixture.store.commit(batch) }
    } as ChangeSink
    fixture.properties.sessions.heartbeatInterval = Duration.ofSeconds(1)
    fixture.properties.sessions.maxPendingBatches = 1
    fixture.start()
    def agent = fixture.agent().hello('agent-1', [account('prod')], [1, 2])
    agent.next(WELCOME)

    when: 'the plugin stops reading, and the agent itself sends nothing but batches'
    agent.upsert('prod', 1, 'web').upsert('prod', 2, 'api')
    eventually.eventually { assert held.size() == 1 }

    then: 'heartbeats keep coming for longer than three intervals'
    (1..4).each { assert agent.next(HEARTBEAT).heartbeat.sentAtMillis > 0 }
    !agent.closed.isDone()
    held.size() == 1

    when:
    held[0].complete(null)

    then:
    agent.awaitAck('prod', 1) == 1
  }

  def "a version 2 agent's heartbeat is not answered; a version 1 agent's is"() {
    given:
    fixture.start()
    def v2 = fixture.agent().hello('agent-2', [account('a')], [1, 2])
    v2.next(WELCOME)
    def v1 = fixture.agent().hello('agent-1', [account('b')], [1])
    v1.next(WELCOME)

    when:
    [v1, v2]*.send(AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(1)).build())

    then: 'the default interval is 10 s, so a heartbeat within 2 s is an answer'
    v1.next(HEARTBEAT)
    v2.received.poll(2, TimeUnit.SECONDS)?.bodyCase != HEARTBEAT
  }

  def "refused changes are reported on the acknowledgement, once"() {
    given:
    def refusal = RefusedChange.newBuilder().setSequence(1).setKind(DEPLOYMENT).setNamespace('default')
      .setName('web').setReason('object_json is not JSON').build()
    fixture.sink = { SinkBatch batch ->
      fixture.store.commit(batch).thenApply {
        batch.entries()*.sequence().contains(1L) ? new CommitOutcome([refusal], []) : CommitOutcome.STORED
      }
    } as ChangeSink
    fixture.start()
    def agent = fixture.agent().hello('agent-1', [account('prod')], [1, 2])
    agent.next(WELCOME)

    when:
    agent.upsert('prod', 1, 'web')
    def first = agent.next(ACK).ack
    agent.upsert('prod', 2, 'api')
    def second = agent.next(ACK).ack

    then:
    first.sequence == 1
    first.refusedList == [refusal]
    second.sequence == 2
    second.refusedList.isEmpty()
  }

  def "a listing whose beginning this replica did not see is asked for again: ResyncRequest in version 2, a decision in version 1"() {
    given:
    fixture.sink = { SinkBatch batch ->
      fixture.store.commit(batch).thenApply {
        batch.entries().any { it.sequence() == 5L } ? new CommitOutcome([], [DEPLOYMENT]) : CommitOutcome.STORED
      }
    } as ChangeSink
    fixture.start()
    def v2 = fixture.agent().hello('agent-2', [account('a')], [1, 2])
    v2.next(WELCOME)
    def v1 = fixture.agent().hello('agent-1', [account('b', 'https://10.9.0.1:6443')], [1])
    v1.next(WELCOME)

    when:
    v2.send(batch('a', [], [marker(5, ResyncPhase.RESYNC_PHASE_END)], []))
    v1.resync('b', 5, ResyncPhase.RESYNC_PHASE_END)
    def request = v2.next(RESYNC_REQUEST).resyncRequest
    def decision = v1.next(DECISIONS).decisions.getAccounts(0)

    then:
    request.account == 'a'
    request.kindsList == [DEPLOYMENT]
    request.reason.contains('did not see')
    decision.account == 'b'
    decision.accepted
    decision.role == Role.ROLE_CACHING
    decision.resyncRequired
    v2.acknowledged['a'] == 5

    and: 'the END did not complete a listing'
    fixture.accounts.find('a').get().state() == AccountState.ACTIVATING
    fixture.accounts.find('b').get().state() == AccountState.ACTIVATING
    fixture.meters.get('spinagent.resync.requests').counter().count() == 2
  }

  def "a version 1 session that sends markers inside a batch is closed, naming the version"() {
    given:
    fixture.start()
    def agent = fixture.agent().hello('agent-1', [account('prod')], [1])
    agent.next(WELCOME)

    when:
    agent.send(batch('prod', [], [marker(1, ResyncPhase.RESYNC_PHASE_BEGIN)], []))
    def status = agent.awaitClosed()

    then:
    status.code == Status.Code.INVALID_ARGUMENT
    status.description.contains('need protocol version 2')
  }

  def "bad version 2 batches close the session with a message naming the problem"() {
    given:
    fixture.start()
    def agent = fixture.agent().hello('agent-1', [account('prod')], [1, 2])
    agent.next(WELCOME)

    when:
    agent.send(frame)
    def status = agent.awaitClosed()

    then:
    status.code == Status.Code.INVALID_ARGUMENT
    status.description.contains(problem)
    fixture.store.objects('prod').isEmpty()

    where:
    frame                                                                                                               || problem
    batch('prod', [change(3, 'web', ChangeType.CHANGE_TYPE_UPSERT, '1', json('web', '1'))], [], [progress(3, DEPLOYMENT, '1')]) || 'sequence 3 is used twice'
    batch('prod', [], [], [progress(1, DEPLOYMENT, '')])                                                                 || 'resource_version is required'
    batch('prod', [], [], [progress(1, DEPLOYMENT, '9' * 65)])                                                           || 'longer than 64 characters'
    batch('prod', [], [], [progress(0, DEPLOYMENT, '1')])                                                                || 'sequence must be positive'
    batch('prod', [], [marker(1, ResyncPhase.RESYNC_PHASE_UNSPECIFIED)], [])                                            || 'phase is required'
    batch('prod', [], [marker(1, ResyncPhase.RESYNC_PHASE_BEGIN).toBuilder().setAccount('other').build()], [])         || "resync marker of account 'other'"
  }

  private static AgentMessage batch(String account, List<ObjectChange> changes, List<ResyncMarker> markers, List<WatchProgress> progress) {
    AgentMessage.newBuilder().setChanges(ChangeBatch.newBuilder()
      .setAccount(account).addAllChanges(changes).addAllMarkers(markers).addAllProgress(progress)).build()
  }

  private static ResyncMarker marker(long sequence, ResyncPhase phase, Kind kind = DEPLOYMENT) {
    ResyncMarker.newBuilder().setKind(kind).setPhase(phase).setSequence(sequence).setResyncId('r1').build()
  }

  private static WatchProgress progress(long sequence, Kind kind, String resourceVersion) {
    WatchProgress.newBuilder().setKind(kind).setSequence(sequence).setResourceVersion(resourceVersion).build()
  }

  private static String json(String name, String resourceVersion) {
    """{"metadata":{"name":"$name","namespace":"default","resourceVersion":"$resourceVersion"}}"""
  }
}
