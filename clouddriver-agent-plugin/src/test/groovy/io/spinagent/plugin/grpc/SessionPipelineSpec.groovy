package io.spinagent.plugin.grpc

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.spinagent.plugin.cache.InMemoryObjectStore.ObjectKey
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ObjectChange
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The session pipeline alone, fast: real sessions and account pipelines on gRPC's in-process
 * transport, with the sink held by the spec. What the database does is the SQL writer's specs'.
 */
class SessionPipelineSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = ChannelFixture.inProcess()

  GatedSink sink = new GatedSink(fixture.store)

  PollingConditions conditions = new PollingConditions(timeout: 10)

  def setup() {
    fixture.sink = sink
  }

  def "an account's batches are committed one at a time, in order, what arrived meanwhile joined, and acknowledged only once committed"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when:
    agent.upsert('prod', 1, 'web')
    conditions.eventually { assert sink.inFlight()*.lastSequence() == [1L] }
    agent.upsert('prod', 2, 'api').upsert('prod', 3, 'db')

    then: 'the first batch is in flight, the others wait behind it'
    conditions.eventually { assert changeFrames() == 3 }
    sink.inFlight()*.lastSequence() == [1L]
    agent.acknowledged.isEmpty()

    when:
    sink.commitNext('prod')

    then: 'the two that waited are one commit'
    agent.awaitAck('prod', 1) == 1
    conditions.eventually {
      assert sink.inFlight().collect { it.entries()*.sequence() } == [[2L, 3L]]
    }
    agent.acknowledged.prod == 1L

    when:
    sink.commitNext('prod')

    then:
    agent.awaitAck('prod', 3) == 3
    sink.attempts*.lastSequence() == [1L, 3L]
    sink.mostInFlight() == 1
    fixture.store.objects('prod').keySet()*.name() as Set == ['web', 'api', 'db'] as Set
  }

  def "one account's stuck commit does not hold back another account of the same agent"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod'), account('staging', 'https://10.0.0.2:6443')]).next(WELCOME)

    when:
    agent.upsert('prod', 1, 'web').upsert('staging', 1, 'web')
    conditions.eventually {
      assert sink.inFlight()*.account() as Set == ['prod', 'staging'] as Set
    }
    sink.commitNext('staging')

    then: 'staging is acknowledged while prod is still in flight'
    agent.awaitAck('staging', 1) == 1
    sink.inFlight()*.account() == ['prod']
    !agent.acknowledged.containsKey('prod')
  }

  def "a failed commit is retried, with what arrived meanwhile, until it succeeds, and only then acknowledged"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when: 'the database fails the first two attempts; a second frame arrives during the first'
    agent.upsert('prod', 1, 'web')
    conditions.eventually { assert sink.inFlight()*.lastSequence() == [1L] }
    agent.upsert('prod', 2, 'api')
    conditions.eventually { assert changeFrames() == 2 }
    sink.failNext('prod')
    conditions.eventually { assert sink.inFlight()*.lastSequence() == [2L] }
    sink.failNext('prod')

    then: 'both come again, and nothing was acknowledged'
    conditions.eventually { assert sink.attempts.size() == 3 && sink.inFlight()*.lastSequence() == [2L] }
    !agent.acknowledged.containsKey('prod')

    when:
    sink.commitNext('prod')

    then:
    agent.awaitAck('prod', 2) == 2
    sink.attempts.collect { it.entries()*.sequence() } == [[1L], [1L, 2L], [1L, 2L]]
    fixture.store.objects('prod').keySet() == [new ObjectKey('apps', 'Deployment', 'default', 'web'),
                                               new ObjectKey('apps', 'Deployment', 'default', 'api')] as Set
  }

  def "the session stops reading while maxPendingBatches batches wait for the sink, and reads on as they commit"() {
    given: 'at most two batches may wait for the sink'
    fixture.properties.sessions.maxPendingBatches = 2
    fixture.start()
    def names = (1..5).collect { "account-$it".toString() }
    def agent = fixture.agent()
    agent.hello('agent-1', names.withIndex().collect { name, i -> account(name, "https://10.0.1.$i:6443") }).next(WELCOME)

    when: 'five accounts send a batch each, and the sink takes none'
    names.each { agent.upsert(it, 1, 'web') }

    then: 'two are handed to the sink, and the plugin asks for no more frames'
    conditions.eventually {
      assert sink.inFlight().size() == 2
      assert !agent.ready()
    }
    fixture.meters.get('spinagent.frames.received').tag('type', 'changes').counter().count() == 2

    when: 'the sink catches up, one batch at a time'
    names.each { name ->
      conditions.eventually { assert sink.inFlight()*.account().contains(name) }
      sink.commitNext(name)
    }

    then: 'every batch was read and acknowledged, never more than two waiting at once'
    names.each { agent.awaitAck(it, 1) }
    sink.mostInFlight() == 2
    fixture.meters.get('spinagent.frames.received').tag('type', 'changes').counter().count() == 5
  }

  def "frames the session already took are not committed again"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when: 'the agent sends 1 and 2, then 1 to 3 again (as after a lost acknowledgement)'
    agent.changes('prod', (1..2).collect { upsert(it) })
    conditions.eventually { assert sink.inFlight().size() == 1 }
    sink.commitNext('prod')
    agent.awaitAck('prod', 2)
    agent.changes('prod', (1..3).collect { upsert(it) })
    conditions.eventually { assert sink.inFlight().size() == 1 }
    sink.commitNext('prod')

    then: 'only 3 is new'
    agent.awaitAck('prod', 3) == 3
    sink.attempts.collect { it.entries()*.sequence() } == [[1L, 2L], [3L]]
  }

  private static ObjectChange upsert(long sequence) {
    String name = "object-$sequence"
    RawAgent.change(sequence, name, ChangeType.CHANGE_TYPE_UPSERT, "$sequence",
      """{"metadata":{"name":"$name","resourceVersion":"$sequence"}}""")
  }

  private long changeFrames() {
    fixture.meters.get('spinagent.frames.received').tag('type', 'changes').counter().count() as long
  }
}
