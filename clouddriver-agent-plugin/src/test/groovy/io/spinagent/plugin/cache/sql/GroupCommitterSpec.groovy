package io.spinagent.plugin.cache.sql

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.time.FakeClock
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.RefusedChange
import java.sql.SQLException
import java.sql.SQLNonTransientConnectionException
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.TimeUnit
import org.jooq.exception.DataAccessException
import spock.lang.Specification
import spock.lang.Tag

/**
 * Group commit's queue, grouping and isolation, with transactions that record the groups they are
 * given instead of writing anything. The committers' pool is a {@link FakeClock}'s executor: each
 * committer runs on the spec's thread when the spec runs the due tasks, and "while a transaction
 * runs" is a closure the transaction runs before it commits. There, running the due tasks runs the
 * committers started meanwhile to their end, as other threads would while the transaction is open.
 */
@Tag('one-class')
class GroupCommitterSpec extends Specification {

  SimpleMeterRegistry meters = new SimpleMeterRegistry()
  FakeClock time = new FakeClock()
  RecordingTransactions transactions = new RecordingTransactions()
  List<Duration> pauses = []

  def cleanup() {
    assert time.pendingTasks() == 0
  }

  GroupCommitter committer(int committers) {
    new GroupCommitter(transactions, time.executor, committers, new WriterMetrics(meters), time.nanoTime, { pauses << it })
  }

  static Work.Batch batch(String account, long sequence = 1) {
    new Work.Batch(new SinkBatch(account, [new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(sequence).setKind(Kind.newBuilder().setKind('Pod').setVersion('v1'))
        .setNamespace('ns').setName('p').setResourceVersion("$sequence").build())]))
  }

  /** A batch of {@code changes} changes, sequences 1 to {@code changes}. */
  static Work.Batch largeBatch(String account, int changes) {
    new Work.Batch(new SinkBatch(account, (1..changes).collect { n ->
      new SinkEntry.Change(ObjectChange.newBuilder()
          .setSequence(n).setKind(Kind.newBuilder().setKind('Pod').setVersion('v1'))
          .setNamespace('ns').setName("p$n").setResourceVersion("$n").build())
    }))
  }

  static List<List<String>> slices(List<List<Work>> groups) {
    groups.collect { g -> g.collect { w -> "${w.account()}:${w.entries().size()}".toString() } }
  }

  /** Hands the work over and lets the committers run until nothing is left to do. */
  Work commit(GroupCommitter gc, Work work) {
    gc.submit(work)
    time.runDueTasks()
    work
  }

  /** The work's outcome: its stage must be complete by now. */
  static CommitOutcome outcome(Work work) {
    assert work.result().done
    work.result().join()
  }

  /** Why the work failed: its stage must have failed by now. */
  static Throwable failure(Work work) {
    assert work.result().completedExceptionally
    try {
      work.result().join()
      throw new AssertionError('not failed')
    } catch (CompletionException e) {
      e.cause
    }
  }

  def "what is queued while a transaction runs shares the next one, each batch acknowledged with its own outcome"() {
    given:
    def gc = committer(1)
    def others = ['a', 'b', 'c'].collect { batch(it) }

    when: 'three accounts hand over a batch while the first transaction runs'
    transactions.meanwhile.blocker = { others.each { gc.submit(it) } }
    def first = commit(gc, batch('blocker'))

    then: 'one transaction for the three, each stage completed with its account outcome'
    transactions.committed.collect { g -> g*.account() } == [['blocker'], ['a', 'b', 'c']]
    others.collect { outcome(it).refused()*.name }.flatten() == ['a', 'b', 'c']
    outcome(first).refused()*.name == ['blocker']
  }

  def "an account's batches are taken in order, never two in flight, while other accounts go ahead"() {
    given: 'two committers'
    def gc = committer(2)
    def a1 = batch('a', 1)
    def a2 = batch('a', 2)
    def b1 = batch('b', 1)
    Map<String, Boolean> done

    when: "while a's first batch commits, a's second and b's first are handed over"
    transactions.meanwhile.a = {
      gc.submit(a2)
      gc.submit(b1)
      time.runDueTasks()
      done = [a1: a1.result().done, a2: a2.result().done, b1: b1.result().done]
    }
    commit(gc, a1)

    then: "b committed while a's first batch still ran; a's second waited for it"
    done == [a1: false, a2: false, b1: true]
    transactions.committed.collect { g -> g.collect { "${it.account()}${it.entries()[0].sequence()}" } } == [['b1'], ['a1'], ['a2']]
    [a1, a2, b1].every { it.result().done }
  }

  def "a group that fails is retried in halves: only the batch that fails alone fails, the others commit"() {
    given:
    def gc = committer(1)
    transactions.failing = ['bad'] as Set
    def group = ['a', 'b', 'bad', 'c', 'd'].collectEntries { [(it): batch(it)] }

    when:
    transactions.meanwhile.blocker = { group.values().each { gc.submit(it) } }
    commit(gc, batch('blocker'))

    then:
    ['a', 'b', 'c', 'd'].every { outcome(group[it]) != null }
    failure(group.bad).message.contains('bad row')

    and: 'every other batch committed, in transactions without the failing one'
    transactions.committed.flatten()*.account() as Set == ['blocker', 'a', 'b', 'c', 'd'] as Set
    transactions.committed.every { g -> !g*.account().contains('bad') }
    meters.counter('spinagent.cache.group.splits').count() >= 1
    meters.counter('spinagent.cache.batches.failed').count() == 1
  }

  def "a database that cannot be reached fails the whole group at once, without splitting it"() {
    given:
    def gc = committer(1)
    def group = ['a', 'b', 'c'].collect { batch(it) }

    when: 'the connection is lost while the first transaction runs'
    transactions.meanwhile.blocker = {
      transactions.failure = new DataAccessException('no connection', new SQLNonTransientConnectionException('refused', '08001'))
      group.each { gc.submit(it) }
    }
    commit(gc, batch('blocker'))

    then:
    group.every { failure(it).message == 'no connection' }
    transactions.attempts.count { g -> g*.account().contains('a') } == 1
    meters.counter('spinagent.cache.group.splits').count() == 0
  }

  def "a deadlock runs the same group again after a pause, and so does a missing table once created, at once"() {
    given:
    def gc = committer(1)
    transactions.failures = [new DataAccessException('deadlock', new SQLException('Deadlock found', '40001', 1213)),
                             new CacheTables.MissingTables(['pod'] as Set)]

    when:
    def b = commit(gc, batch('a'))

    then:
    outcome(b) != null
    transactions.attempts.collect { g -> g*.account() } == [['a'], ['a'], ['a']]
    meters.counter('spinagent.cache.group.retries', 'reason', 'conflict').count() == 1
    meters.counter('spinagent.cache.group.retries', 'reason', 'missing_table').count() == 1

    and: 'one pause, of about 15 ms (spread by two thirds of itself)'
    pauses.size() == 1
    pauses[0] >= Duration.ofMillis(5) && pauses[0] <= Duration.ofMillis(25)
  }

  def "a purge is committed alone, after the account's batch before it"() {
    given:
    def gc = committer(1)
    def before = batch('a')
    def purge = new Work.Purge('a', { true }, new CompletableFuture<CommitOutcome>())
    def other = batch('b')

    when:
    transactions.meanwhile.blocker = { [before, purge, other].each { gc.submit(it) } }
    commit(gc, batch('blocker'))

    then:
    [before, other, purge].every { outcome(it) != null }
    transactions.committed.collect { g -> g.collect { it instanceof Work.Purge ? 'purge a' : it.account() } } ==
        [['blocker'], ['a', 'b'], ['purge a']]
  }

  def "while other accounts stream, a large batch is committed in slices, one per transaction, the others' work taken between them; it is acknowledged once, with every slice's outcome"() {
    given: 'two accounts hand over large batches (both busy) while a third streams too'
    def gc = committer(1)
    commit(gc, batch('other'))
    def first = largeBatch('first', 2 * BatchSlices.MAX_CHANGES + 50)
    def second = largeBatch('second', 2 * BatchSlices.MAX_CHANGES + 50)
    boolean firstDoneMeanwhile

    when: "the second batch arrives while the first one's first slice commits"
    transactions.meanwhile.first = {
      gc.submit(second)
      firstDoneMeanwhile = first.result().done
    }
    commit(gc, first)

    then: 'the batch was not acknowledged while a slice was left'
    !firstDoneMeanwhile

    and: 'each transaction holds at most one slice of each batch'
    slices(transactions.committed) ==
        [['other:1'], ['first:100'], ['first:100', 'second:100'], ['first:50', 'second:100'], ['second:50']]

    and: 'in stream order'
    transactions.committed.findAll { g -> g*.account().contains('first') }
        .collect { g -> g.find { it.account() == 'first' }.entries()[0].sequence() } == [1L, 101L, 201L]

    and: 'one outcome for the batch, with each slice\'s'
    outcome(first).refused()*.name == ['first', 'first', 'first']
    outcome(second) != null
    meters.timer('spinagent.cache.queue.wait').count() == 7
  }

  def "a quiet account's batch commits in a transaction of its own while a busy account's transaction runs, never sharing one with it"() {
    given: 'a cluster that has handed over hundreds of changes in the last second'
    def gc = committer(1)
    commit(gc, batch('quiet', 1))
    commit(gc, largeBatch('flood', 400))
    def flood = largeBatch('flood', 20)
    def quiet = batch('quiet', 2)
    def other = batch('other', 1)
    Map<String, Boolean> done

    when: "the busy account's next transaction runs, and the quiet account and another hand over a change"
    transactions.meanwhile.flood = {
      gc.submit(quiet)
      gc.submit(other)
      time.runDueTasks()
      done = [flood: flood.result().done, quiet: quiet.result().done, other: other.result().done]
    }
    commit(gc, flood)

    then: 'both committed while the busy transaction had not finished'
    done == [flood: false, quiet: true, other: true]
    outcome(flood) != null

    and: 'no transaction mixes the busy account with the quiet ones'
    transactions.committed.every { g -> !g*.account().contains('flood') || g*.account() == ['flood'] }
    transactions.committed.flatten().count { it.account() != 'flood' } == 3
    meters.get('spinagent.cache.accounts.busy').gauge().value() == 1
  }

  def "an account is busy only while it streams: once it has quietened down its batches share transactions with the others again"() {
    given:
    def gc = committer(1)
    commit(gc, largeBatch('burst', 150))

    expect:
    meters.get('spinagent.cache.accounts.busy').gauge().value() == 1

    when: 'three seconds later'
    time.forwardTime(3, TimeUnit.SECONDS)
    def burst = batch('burst', 151)
    def quiet = batch('quiet')
    transactions.meanwhile.blocker = { [burst, quiet].each { gc.submit(it) } }
    commit(gc, batch('blocker'))

    then:
    [burst, quiet].every { outcome(it) != null }
    meters.get('spinagent.cache.accounts.busy').gauge().value() == 0
    transactions.committed.collect { g -> g*.account() } == [['burst'], ['blocker'], ['burst', 'quiet']]
  }

  def "an account streaming alone keeps a large batch whole, in one transaction"() {
    given:
    def gc = committer(1)

    when:
    def alone = commit(gc, largeBatch('alone', 2 * BatchSlices.MAX_CHANGES + 50))

    then:
    outcome(alone) != null
    slices(transactions.committed) == [['alone:250']]
  }

  def "a slice that fails fails its batch, whose later slices are not written; the account's next batch commits"() {
    given:
    def gc = committer(1)
    commit(gc, batch('other'))
    transactions.failing = ['flood'] as Set

    when:
    def flood = commit(gc, largeBatch('flood', 3 * BatchSlices.MAX_CHANGES))

    then:
    failure(flood).message.contains('bad row')

    and: 'only the first slice was tried'
    transactions.attempts.collect { g -> g*.account() } == [['other'], ['flood']]

    when: 'the pipeline hands over what comes next'
    transactions.failing = [] as Set
    def next = commit(gc, batch('flood', 301))

    then:
    outcome(next) != null
    slices(transactions.committed) == [['other:1'], ['flood:1']]
  }

  def "with two committers, the slices of a batch still commit one after another while other accounts go ahead"() {
    given:
    def gc = committer(2)
    commit(gc, batch('other', 1))
    def flood = largeBatch('flood', BatchSlices.MAX_CHANGES + 1)
    def other = batch('other', 2)
    List<List<String>> triedMeanwhile

    when: "another account's batch comes while the first slice commits"
    transactions.meanwhile.flood = {
      gc.submit(other)
      time.runDueTasks()
      triedMeanwhile = slices(transactions.attempts)
    }
    commit(gc, flood)

    then: 'the second slice waited for the first'
    triedMeanwhile == [['other:1'], ['flood:100'], ['other:1']]
    slices(transactions.committed) == [['other:1'], ['other:1'], ['flood:100'], ['flood:1']]
    [flood, other].every { outcome(it) != null }
  }

  /**
   * Records each group; its outcomes name the accounts, so that a mix-up would show. Whether a
   * transaction fails is decided as it starts; what the spec does meanwhile runs before it ends.
   */
  static class RecordingTransactions implements GroupCommitter.Transactions {
    final List<List<Work>> attempts = []
    final List<List<Work>> committed = []
    /** Run while the first transaction holding the account's work is open. */
    final Map<String, Closure> meanwhile = [:]
    Set<String> failing = [] as Set
    RuntimeException failure
    List<RuntimeException> failures = []

    @Override
    void prepare(List<Work> group) {}

    @Override
    List<CommitOutcome> commit(List<Work> group) {
      attempts << new ArrayList<>(group)
      RuntimeException fails = !failures.isEmpty() ? failures.remove(0)
        : failure != null ? failure
        : group*.account().any { failing.contains(it) } ? new DataAccessException('a bad row', new SQLException('CONSTRAINT failed', '23000'))
        : null
      group*.account().findResult { meanwhile.remove(it) }?.call()
      if (fails != null) {
        throw fails
      }
      committed << new ArrayList<>(group)
      group.collect { w -> new CommitOutcome([RefusedChange.newBuilder().setName(w.account()).build()], []) }
    }

    @Override
    boolean failed(List<Work> group, RuntimeException e) {
      CacheTables.MissingTables.in(e) != null
    }
  }
}
