package io.spinagent.plugin.grpc.session

import com.google.protobuf.ByteString
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.InMemoryObjectStore
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.grpc.GatedSink
import io.spinagent.plugin.time.FakeClock
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import java.time.Duration
import java.util.concurrent.Executor
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.lang.Tag

/**
 * A session's intake under inbound flow control, alone: real account pipelines committing to a sink
 * the spec holds, on the calling thread, their commit intervals timed on a fake clock, and the reads
 * the intake asks of the transport counted.
 */
@Tag('one-class')
class AccountIntakeSpec extends Specification {

  static final Kind DEPLOYMENT = Kind.newBuilder().setGroup('apps').setVersion('v1').setKind('Deployment').build()

  GatedSink sink = new GatedSink(new InMemoryObjectStore())
  FakeClock time = new FakeClock()
  Executor direct = { it.run() } as Executor
  int reads
  List<String> reported = []

  AccountIntake intake = intake(Duration.ZERO)

  /** An intake whose pipelines commit an account at most once per {@code interval}. */
  AccountIntake intake(Duration interval) {
    new AccountIntake(2, { reads++ },
      { account, stalled, committed -> new AccountPipeline(account, 'agent-1', sink, direct, time.scheduler, interval, stalled, time.nanoTime, committed) },
      { account, batch, CommitOutcome outcome -> reported << "$account:${batch.lastSequence()}:reads=$reads".toString() })
  }

  static List<SinkEntry> changes(long... sequences) {
    sequences.collect { sequence ->
      new SinkEntry.Change(ObjectChange.newBuilder().setSequence(sequence).setKind(DEPLOYMENT).setName("o$sequence")
        .setType(ChangeType.CHANGE_TYPE_UPSERT).setObjectJson(ByteString.copyFromUtf8('{}')).build())
    }
  }

  def "each account's batches go to its own pipeline, and every commit is reported"() {
    when:
    intake.submit('prod', changes(1))
    intake.submit('dev', changes(1))

    then:
    sink.inFlight()*.account() as Set == ['prod', 'dev'] as Set

    when:
    sink.commitNext('prod')
    sink.commitNext('dev')

    then:
    reported == ['prod:1:reads=0', 'dev:1:reads=0']
  }

  def "entries at or below the last sequence taken are a replay, taken once"() {
    given:
    intake.submit('prod', changes(1, 2))

    when:
    intake.submit('prod', changes(1, 2))
    intake.submit('prod', changes(2, 3))

    then:
    sink.attempts.collect { it.entries()*.sequence() } == [[1L, 2L]]

    when:
    sink.commitNext('prod')

    then:
    sink.attempts.collect { it.entries()*.sequence() } == [[1L, 2L], [3L]]
  }

  def "reading stops while as many batches as allowed await their commit, and resumes after the report of the commit that frees a place"() {
    given:
    intake.submit('prod', changes(1))
    intake.readNext()
    intake.submit('prod', changes(2))

    when:
    intake.readNext()

    then: 'two batches await: the next frame waits'
    reads == 1
    intake.readingDeferred()

    when:
    sink.commitNext('prod')

    then: 'the commit is reported first, then the frame is read'
    reported == ['prod:1:reads=1']
    reads == 2
    !intake.readingDeferred()

    when: 'a commit while reading was not deferred reads nothing more'
    sink.commitNext('prod')

    then:
    reads == 2
  }

  def "an account the agent no longer streams starts afresh: its pipeline stops, and its sequences count anew"() {
    given:
    intake.submit('prod', changes(5))

    when:
    intake.remove('prod')
    intake.submit('prod', changes(1))

    then:
    sink.attempts.collect { it.entries()*.sequence() } == [[5L], [1L]]
  }

  def "when reading stops, an account waiting for its commit interval commits at once"() {
    given: 'pipelines that wait ten minutes between two commits of an account'
    def paced = intake(Duration.ofMinutes(10))
    paced.submit('prod', changes(1))
    sink.commitNext('prod')
    paced.submit('prod', changes(2))

    expect: 'prod waits for its interval'
    sink.inFlight().isEmpty()

    when: 'another account fills the allowance of the session, and the next read is deferred'
    paced.submit('dev', changes(1))
    paced.readNext()

    then:
    paced.readingDeferred()
    reads == 0
    sink.inFlight().collect { it.account() + ':' + it.lastSequence() } as Set == ['prod:2', 'dev:1'] as Set

    and: 'its timer is gone'
    time.pendingTasks() == 0
  }

  def "while reading goes on, an account waiting for its commit interval commits when the interval has passed"() {
    given:
    def paced = intake(Duration.ofMinutes(10))
    paced.submit('prod', changes(1))
    sink.commitNext('prod')
    paced.submit('prod', changes(2))

    when:
    time.forwardTime(10, TimeUnit.MINUTES)

    then:
    sink.inFlight()*.lastSequence() == [2L]
    !paced.readingDeferred()
  }

  def "an account removed while its batches await their commit frees their places, and reading resumes"() {
    given: 'two batches of prod await their commit: reading waits'
    intake.submit('prod', changes(1))
    intake.readNext()
    intake.submit('prod', changes(2))
    intake.readNext()
    assert intake.readingDeferred() && reads == 1

    when:
    intake.remove('prod')

    then:
    !intake.readingDeferred()
    reads == 2

    when: 'the commit that was under way ends: nothing is reported, nothing counted twice'
    sink.commitNext('prod')
    intake.submit('dev', changes(1))
    intake.submit('dev', changes(2))
    intake.readNext()

    then:
    reported.isEmpty()
    reads == 2
    intake.readingDeferred()
  }

  def "once closed it takes nothing, reads nothing, and hands back the pipelines to stop"() {
    given:
    intake.submit('prod', changes(1))
    intake.submit('prod', changes(2))
    intake.readNext()

    when:
    def pipelines = intake.close()
    intake.submit('dev', changes(1))
    intake.readNext()
    pipelines*.close()
    sink.commitNext('prod')

    then:
    pipelines.size() == 1
    reads == 0
    sink.attempts*.account() == ['prod']
    sink.inFlight().isEmpty()
  }
}
