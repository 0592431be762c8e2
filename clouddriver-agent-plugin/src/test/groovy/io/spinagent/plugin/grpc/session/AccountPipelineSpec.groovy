package io.spinagent.plugin.grpc.session

import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.RefusedChange
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.ThreadFactory
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * One account's commits: in stream order, one at a time, a busy account's frames joined into few
 * commits. The sink here answers when the spec says so, which is what makes "while a commit runs"
 * something a spec can arrange.
 */
class AccountPipelineSpec extends Specification {

  PollingConditions conditions = new PollingConditions(timeout: 10)

  def executor = Executors.newSingleThreadExecutor()
  /** The scheduler's one thread, so that a spec can see a timer's task wait for the pipeline. */
  volatile Thread schedulerThread
  def scheduler = Executors.newSingleThreadScheduledExecutor({ Runnable task ->
    schedulerThread = new Thread(task, 'pipeline-scheduler')
    schedulerThread.daemon = true
    schedulerThread
  } as ThreadFactory)
  AtomicLong clock = new AtomicLong()
  AtomicBoolean stalled = new AtomicBoolean()

  /** What the pipeline handed the sink, with the stage the spec completes. */
  List<SinkBatch> commits = new CopyOnWriteArrayList<>()
  List<CompletableFuture<CommitOutcome>> answers = new CopyOnWriteArrayList<>()
  /** The most commits in flight at once. */
  volatile int mostInFlight
  ChangeSink sink = new ChangeSink() {
    @Override
    CompletionStage<CommitOutcome> commit(SinkBatch batch) {
      def answer = new CompletableFuture<CommitOutcome>()
      answers << answer // first: the spec waits on commits, then completes the answer
      mostInFlight = Math.max(mostInFlight, answers.count { !it.done } as int)
      commits << batch
      answer
    }
  }

  /** What the session heard: the last sequence, the frames and the outcome of each commit. */
  List<Map> reported = new CopyOnWriteArrayList<>()

  def cleanup() {
    executor.shutdownNow()
    scheduler.shutdownNow()
    executor.awaitTermination(5, TimeUnit.SECONDS)
    scheduler.awaitTermination(5, TimeUnit.SECONDS)
  }

  AccountPipeline pipeline(Duration minCommitInterval = Duration.ZERO) {
    new AccountPipeline('prod', 'agent-1', sink, executor, scheduler, minCommitInterval, stalled::get, clock::get,
        { SinkBatch batch, int frames, CommitOutcome outcome ->
          reported << [last: batch.lastSequence(), frames: frames, size: batch.entries().size(), outcome: outcome]
        } as AccountPipeline.Committed)
  }

  /** Waits until the timers and commits handed on so far have run. */
  void idle() {
    scheduler.submit({} as Runnable).get(10, TimeUnit.SECONDS)
    executor.submit({} as Runnable).get(10, TimeUnit.SECONDS)
  }

  /** Lets every commit through, and those that follow, until none is in flight. */
  void settle() {
    for (int round = 0; round < 100; round++) {
      idle()
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
    conditions.eventually { assert commits.size() == 1 }
    pipeline.submit(batch(2))
    pipeline.submit(batch(3, 2))
    pipeline.submit(batch(5))
    pipeline.submit(batch(6))
    answers[0].complete(CommitOutcome.STORED)

    then: 'the four are one commit'
    conditions.eventually { assert commits.size() == 2 }
    sequences(commits[1]) == [2L, 3L, 4L, 5L, 6L]

    when:
    def refusal = RefusedChange.newBuilder().setSequence(4).setReason('not JSON').build()
    answers[1].complete(new CommitOutcome([refusal], []))

    then: 'each commit reported once, with the frames it answers for and its refusals'
    conditions.eventually { assert reported.size() == 2 }
    reported[0] == [last: 1L, frames: 1, size: 1, outcome: CommitOutcome.STORED]
    reported[1].last == 6L
    reported[1].frames == 4
    reported[1].outcome.refused() == [refusal]
    pipeline.pending() == 0
    commits.size() == 2
  }

  def "an account commits at most once per interval; what arrives meanwhile waits and is joined"() {
    given:
    def pipeline = pipeline(Duration.ofMillis(50))

    when: 'the first commit starts at once and is durable at once'
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    answers[0].complete(CommitOutcome.STORED)
    conditions.eventually { assert reported.size() == 1 }

    and: 'three frames follow before the interval has passed on the pipeline clock'
    pipeline.submit(batch(2))
    pipeline.submit(batch(3))
    pipeline.submit(batch(4))
    Thread.sleep(300)

    then: 'they wait'
    commits.size() == 1
    pipeline.pending() == 3

    when: 'the interval has passed'
    clock.addAndGet(Duration.ofMillis(50).toNanos())

    then: 'they are one commit'
    conditions.eventually { assert commits.size() == 2 }
    sequences(commits[1]) == [2L, 3L, 4L]
  }

  def "while its session waits for commits before it reads on, an account does not wait for the interval"() {
    given:
    def pipeline = pipeline(Duration.ofMillis(50))
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    answers[0].complete(CommitOutcome.STORED)
    conditions.eventually { assert reported.size() == 1 }

    when: 'the session has stopped reading, and the clock has not moved'
    stalled.set(true)
    pipeline.submit(batch(2))

    then:
    conditions.eventually { assert commits.size() == 2 }
    sequences(commits[1]) == [2L]
  }

  /** A pipeline that committed frame 1 and holds frame 2 back for the interval. */
  AccountPipeline secondFrameWaiting(Duration interval) {
    def pipeline = pipeline(interval)
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    answers[0].complete(CommitOutcome.STORED)
    conditions.eventually { assert reported.size() == 1 }
    pipeline.submit(batch(2))
    executor.submit({} as Runnable).get(10, TimeUnit.SECONDS)
    assert commits.size() == 1 && pipeline.pending() == 1
    pipeline
  }

  def "a commit waiting for the interval starts at once when the session stalls"() {
    given: 'an interval no spec outlives'
    def pipeline = secondFrameWaiting(Duration.ofMinutes(10))

    when:
    stalled.set(true)
    pipeline.sessionStalled()

    then:
    conditions.eventually { assert commits.size() == 2 }
    sequences(commits[1]) == [2L]
  }

  def "a session that stalls just as a waiting commit's timer fires starts that commit once, and nothing is reported that the sink did not commit"() {
    given: 'a frame waiting for the interval (the pipeline clock stands still; the timer fires after 500 ms)'
    def pipeline = secondFrameWaiting(Duration.ofMillis(500))

    when: 'the session stops reading, its readNext busy in the pipeline while the timer fires'
    synchronized (pipeline) {
      conditions.eventually { assert schedulerThread?.state == Thread.State.BLOCKED }
      stalled.set(true)
      pipeline.sessionStalled()
    }
    idle()

    and: 'another frame arrives while frame 2 is being committed; then the commits in flight end together'
    pipeline.submit(batch(3))
    synchronized (pipeline) {
      answers.findAll { !it.done }.each { it.complete(CommitOutcome.STORED) }
    }
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
  }

  def "an account that commits less often than the interval commits at once"() {
    given:
    def pipeline = pipeline(Duration.ofMillis(50))
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    answers[0].complete(CommitOutcome.STORED)

    when:
    clock.addAndGet(Duration.ofMillis(51).toNanos())
    pipeline.submit(batch(2))

    then:
    conditions.eventually { assert commits.size() == 2 }
    sequences(commits[1]) == [2L]
  }

  def "joined commits stay under the entry limit; a larger frame is still committed alone"() {
    given:
    def pipeline = pipeline()
    int half = AccountPipeline.MAX_MERGED_ENTRIES.intdiv(2) + 1

    when:
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    pipeline.submit(batch(10_000, half))
    pipeline.submit(batch(20_000, half))
    pipeline.submit(batch(30_000, AccountPipeline.MAX_MERGED_ENTRIES + 5))
    pipeline.submit(batch(40_000))
    answers[0].complete(CommitOutcome.STORED)
    conditions.eventually { assert commits.size() == 2 }
    answers[1].complete(CommitOutcome.STORED)
    conditions.eventually { assert commits.size() == 3 }
    answers[2].complete(CommitOutcome.STORED)
    conditions.eventually { assert commits.size() == 4 }
    answers[3].complete(CommitOutcome.STORED)

    then:
    conditions.eventually { assert commits.size() == 5 }
    commits*.entries()*.size() == [1, half, half, AccountPipeline.MAX_MERGED_ENTRIES + 5, 1]
    sequences(commits[4]) == [40_000L]
  }

  def "a failed commit is never reported; it is tried again with what arrived since"() {
    given:
    def pipeline = pipeline()

    when:
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    pipeline.submit(batch(2))
    answers[0].completeExceptionally(new IllegalStateException('database down'))

    then: 'after the backoff, both frames in one commit'
    conditions.eventually { assert commits.size() == 2 }
    sequences(commits[1]) == [1L, 2L]
    reported.isEmpty()

    when:
    answers[1].complete(CommitOutcome.STORED)

    then:
    conditions.eventually { assert reported.size() == 1 }
    reported[0].last == 2L
    reported[0].frames == 2
  }

  def "closing drops what is queued, says how much, and reports nothing more"() {
    given:
    def pipeline = pipeline()
    pipeline.submit(batch(1))
    conditions.eventually { assert commits.size() == 1 }
    pipeline.submit(batch(2))
    pipeline.submit(batch(3))

    when:
    int dropped = pipeline.close()
    answers[0].complete(CommitOutcome.STORED)
    pipeline.submit(batch(4))
    Thread.sleep(200)

    then:
    dropped == 3
    reported.isEmpty()
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
