package io.spinagent.plugin.grpc.session

import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.time.FakeClock
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.RefusedChange
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import spock.lang.Specification
import spock.lang.Tag

/**
 * One account's commits: in stream order, one at a time, a busy account's frames joined into few
 * commits. The sink answers when the spec says so, and the pipeline's executor, timers and clock
 * are a {@link FakeClock} the spec steps: "while a commit runs" and "just as a timer fires" are
 * arranged exactly, without threads, sleeps or polling.
 */
@Tag('one-class')
class AccountPipelineSpec extends Specification {

  FakeClock time = new FakeClock()
  AtomicBoolean stalled = new AtomicBoolean()

  /** What the pipeline handed the sink, with the stage the spec completes. */
  List<SinkBatch> commits = []
  List<CompletableFuture<CommitOutcome>> answers = []
  /** The most commits in flight at once. */
  int mostInFlight
  ChangeSink sink = new ChangeSink() {
    @Override
    CompletionStage<CommitOutcome> commit(SinkBatch batch) {
      def answer = new CompletableFuture<CommitOutcome>()
      answers << answer
      mostInFlight = Math.max(mostInFlight, answers.count { !it.done } as int)
      commits << batch
      answer
    }
  }

  /** What the session heard: the last sequence, the frames and the outcome of each commit. */
  List<Map> reported = []

  AccountPipeline pipeline(Duration minCommitInterval = Duration.ZERO) {
    new AccountPipeline('prod', 'agent-1', sink, time.executor, time.scheduler, minCommitInterval, stalled::get,
        time.nanoTime, { SinkBatch batch, int frames, CommitOutcome outcome ->
          reported << [last: batch.lastSequence(), frames: frames, size: batch.entries().size(), outcome: outcome]
        } as AccountPipeline.Committed)
  }

  /** Answers the commit in flight as stored, and runs what that hands on. */
  void store(int commit) {
    answers[commit].complete(CommitOutcome.STORED)
    time.runDueTasks()
  }

  /** Lets every commit through, and those that follow, until none is in flight. */
  void settle() {
    for (int round = 0; round < 100; round++) {
      time.runDueTasks()
      def inFlight = answers.findAll { !it.done }
      if (inFlight.isEmpty()) {
        return
      }
      inFlight.each { it.complete(CommitOutcome.STORED) }
    }
    throw new AssertionError('commits kept coming')
  }

  static SinkBatch batch(long from, int changes = 1) {
    new SinkBatch('prod', (0..<changes).collect { i ->
      (SinkEntry) new SinkEntry.Change(ObjectChange.newBuilder().setSequence(from + i).setName("pod-${from + i}").build())
    })
  }

  static List<Long> sequences(SinkBatch batch) {
    batch.entries()*.sequence()
  }

  def "what queues while a commit runs is committed next as one batch, in stream order, and reported once"() {
    given:
    def pipeline = pipeline()

    when: 'the first frame is being committed while four more arrive'
    pipeline.submit(batch(1))
    time.runDueTasks()
    pipeline.submit(batch(2))
    pipeline.submit(batch(3, 2))
    pipeline.submit(batch(5))
    pipeline.submit(batch(6))
    time.runDueTasks()

    then: 'they wait for it'
    commits.size() == 1

    when:
    store(0)

    then: 'the four are one commit'
    commits.size() == 2
    sequences(commits[1]) == [2L, 3L, 4L, 5L, 6L]

    when:
    def refusal = RefusedChange.newBuilder().setSequence(4).setReason('not JSON').build()
    answers[1].complete(new CommitOutcome([refusal], []))
    time.runDueTasks()

    then: 'each commit reported once, with the frames it answers for and its refusals'
    reported.size() == 2
    reported[0] == [last: 1L, frames: 1, size: 1, outcome: CommitOutcome.STORED]
    reported[1].last == 6L
    reported[1].frames == 4
    reported[1].outcome.refused() == [refusal]
    pipeline.pending() == 0
    commits.size() == 2
    time.pendingTasks() == 0
  }

  def "an account commits at most once per interval; what arrives meanwhile waits and is joined"() {
    given:
    def pipeline = pipeline(Duration.ofMillis(50))

    when: 'the first commit starts at once and is durable at once'
    pipeline.submit(batch(1))
    time.runDueTasks()
    store(0)

    and: 'three frames follow, 49 ms into the interval'
    pipeline.submit(batch(2))
    pipeline.submit(batch(3))
    pipeline.submit(batch(4))
    time.forwardTime(49, TimeUnit.MILLISECONDS)

    then: 'they wait'
    reported.size() == 1
    commits.size() == 1
    pipeline.pending() == 3

    when: 'the interval has passed'
    time.forwardTime(1, TimeUnit.MILLISECONDS)

    then: 'they are one commit'
    commits.size() == 2
    sequences(commits[1]) == [2L, 3L, 4L]
  }

  def "while its session waits for commits before it reads on, an account does not wait for the interval"() {
    given:
    def pipeline = pipeline(Duration.ofMillis(50))
    pipeline.submit(batch(1))
    time.runDueTasks()
    store(0)

    when: 'the session has stopped reading, and the clock has not moved'
    stalled.set(true)
    pipeline.submit(batch(2))
    time.runDueTasks()

    then:
    commits.size() == 2
    sequences(commits[1]) == [2L]
  }

  /** A pipeline that committed frame 1 and holds frame 2 back for the interval. */
  AccountPipeline secondFrameWaiting(Duration interval) {
    def pipeline = pipeline(interval)
    pipeline.submit(batch(1))
    time.runDueTasks()
    store(0)
    pipeline.submit(batch(2))
    time.runDueTasks()
    assert commits.size() == 1 && pipeline.pending() == 1 && time.pendingTasks() == 1
    pipeline
  }

  def "a commit waiting for the interval starts at once when the session stalls"() {
    given:
    def pipeline = secondFrameWaiting(Duration.ofMinutes(10))

    when:
    stalled.set(true)
    pipeline.sessionStalled()
    time.runDueTasks()

    then: 'committed, and the timer gone'
    commits.size() == 2
    sequences(commits[1]) == [2L]
    time.pendingTasks() == 0
  }

  def "a session that stalls just after a waiting commit's timer fired starts that commit once, and nothing is reported that the sink did not commit"() {
    given: 'a frame waiting for the interval'
    def pipeline = secondFrameWaiting(Duration.ofMillis(500))

    when: "the timer fires: its task has handed the commit to the executor, which has not run it yet"
    time.scheduler.schedule({ -> stalled.set(true); pipeline.sessionStalled() }, 500, TimeUnit.MILLISECONDS)
    time.forwardTime(500, TimeUnit.MILLISECONDS)

    and: 'another frame arrives while frame 2 is being committed; then the commits in flight end'
    pipeline.submit(batch(3))
    settle()

    and: 'a last frame, committed as the agent idles'
    pipeline.submit(batch(4))
    settle()

    then: 'every frame reached the sink before the session heard it committed (its Ack is cumulative)'
    commits.collectMany { sequences(it) } == [1L, 2L, 3L, 4L]
    reported*.last == [1L, 2L, 3L, 4L]

    and: 'one commit at a time'
    mostInFlight == 1
    pipeline.pending() == 0
    time.pendingTasks() == 0
  }

  def "an account that commits less often than the interval commits at once"() {
    given:
    def pipeline = pipeline(Duration.ofMillis(50))
    pipeline.submit(batch(1))
    time.runDueTasks()
    store(0)

    when:
    time.forwardTime(51, TimeUnit.MILLISECONDS)
    pipeline.submit(batch(2))
    time.runDueTasks()

    then:
    commits.size() == 2
    sequences(commits[1]) == [2L]
  }

  def "joined commits stay under the entry limit; a larger frame is still committed alone"() {
    given:
    def pipeline = pipeline()
    int half = AccountPipeline.MAX_MERGED_ENTRIES.intdiv(2) + 1

    when:
    pipeline.submit(batch(1))
    time.runDueTasks()
    pipeline.submit(batch(10_000, half))
    pipeline.submit(batch(20_000, half))
    pipeline.submit(batch(30_000, AccountPipeline.MAX_MERGED_ENTRIES + 5))
    pipeline.submit(batch(40_000))
    (0..3).each { store(it) }

    then:
    commits*.entries()*.size() == [1, half, half, AccountPipeline.MAX_MERGED_ENTRIES + 5, 1]
    sequences(commits[4]) == [40_000L]
  }

  def "a failed commit is never reported; it is tried again after the backoff with what arrived since"() {
    given:
    def pipeline = pipeline()

    when:
    pipeline.submit(batch(1))
    time.runDueTasks()
    pipeline.submit(batch(2))
    answers[0].completeExceptionally(new IllegalStateException('database down'))
    time.forwardTime(249, TimeUnit.MILLISECONDS)

    then: 'not before the first backoff (250 ms)'
    commits.size() == 1
    reported.isEmpty()

    when:
    time.forwardTime(1, TimeUnit.MILLISECONDS)

    then: 'both frames in one commit'
    commits.size() == 2
    sequences(commits[1]) == [1L, 2L]
    reported.isEmpty()

    when:
    store(1)

    then:
    reported.size() == 1
    reported[0].last == 2L
    reported[0].frames == 2
  }

  def "closing drops what is queued, says how much, and reports nothing more"() {
    given:
    def pipeline = pipeline()
    pipeline.submit(batch(1))
    time.runDueTasks()
    pipeline.submit(batch(2))
    pipeline.submit(batch(3))

    when:
    int dropped = pipeline.close()
    store(0)
    pipeline.submit(batch(4))
    time.forwardTime(1, TimeUnit.MINUTES)

    then:
    dropped == 3
    reported.isEmpty()
    commits.size() == 1
  }

  def "closing a pipeline whose commit waits for the interval cancels the wait"() {
    given:
    def pipeline = secondFrameWaiting(Duration.ofMillis(500))

    when:
    int dropped = pipeline.close()

    then:
    dropped == 1
    time.pendingTasks() == 0
    time.forwardTime(1, TimeUnit.SECONDS) == 0
    commits.size() == 1
  }

  def "a negative interval is refused, naming the key"() {
    when:
    new SpinAgentProperties.Sessions().setMinCommitInterval(Duration.ofMillis(-1))

    then:
    def e = thrown(IllegalArgumentException)
    e.message.contains('spinagent.sessions.min-commit-interval')
  }
}
