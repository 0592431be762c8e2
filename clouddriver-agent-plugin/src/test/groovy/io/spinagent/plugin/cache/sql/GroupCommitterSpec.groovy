package io.spinagent.plugin.cache.sql

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import java.sql.SQLException
import java.sql.SQLNonTransientConnectionException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.ExecutionException
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import org.jooq.exception.DataAccessException
import spock.lang.Specification

/**
 * Group commit's queue, grouping and isolation, with transactions that record the groups they are
 * given instead of writing anything. Groups are formed deterministically: a first batch's
 * transaction waits on a latch until the batches meant to share the next one are queued.
 */
class GroupCommitterSpec extends Specification {

  SimpleMeterRegistry meters = new SimpleMeterRegistry()
  ExecutorService pool = Executors.newFixedThreadPool(3)
  RecordingTransactions transactions = new RecordingTransactions()

  def cleanup() {
    transactions.release.countDown()
    pool.shutdownNow()
  }

  GroupCommitter committer(int committers) {
    new GroupCommitter(transactions, pool, committers, new WriterMetrics(meters))
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

  static Work submitted(GroupCommitter gc, Work work) {
    gc.submit(work)
    work
  }

  static <T> T await(CompletableFuture<T> future) {
    future.get(30, TimeUnit.SECONDS)
  }

  def "what is queued while a transaction runs shares the next one, each batch acknowledged with its own outcome"() {
    given:
    def gc = committer(1)
    def first = batch('blocker')
    transactions.blockOn = 'blocker'

    when: 'three accounts hand over a batch while the first transaction runs'
    gc.submit(first)
    transactions.started.await(30, TimeUnit.SECONDS)
    def others = ['a', 'b', 'c'].collect { batch(it) }
    others.each { gc.submit(it) }
    transactions.release.countDown()
    def outcomes = others.collect { await(it.result()) }

    then: 'one transaction for the three, each stage completed with its account outcome'
    transactions.committed.collect { g -> g*.account() } == [['blocker'], ['a', 'b', 'c']]
    outcomes*.refused.flatten()*.name == ['a', 'b', 'c']
    await(first.result()).refused*.name == ['blocker']
  }

  def "an account's batches are taken in order, never two in flight, while other accounts go ahead"() {
    given: 'two committers; the first batch of account a waits'
    def gc = committer(2)
    def a1 = batch('a', 1)
    def a2 = batch('a', 2)
    def b1 = batch('b', 1)
    transactions.blockOn = 'a'

    when:
    gc.submit(a1)
    transactions.started.await(30, TimeUnit.SECONDS)
    gc.submit(a2)
    gc.submit(b1)
    await(b1.result())

    then: "b commits while a's first batch still runs; a's second waits for it"
    !a1.result().isDone()
    !a2.result().isDone()

    when:
    transactions.release.countDown()
    await(a2.result())

    then:
    a1.result().isDone()
    transactions.committed.collect { g -> g.collect { "${it.account()}${it.entries()[0].sequence()}" } } == [['b1'], ['a1'], ['a2']]
  }

  def "a group that fails is retried in halves: only the batch that fails alone fails, the others commit"() {
    given:
    def gc = committer(1)
    transactions.blockOn = 'blocker'
    transactions.failing = ['bad'] as Set

    when:
    gc.submit(batch('blocker'))
    transactions.started.await(30, TimeUnit.SECONDS)
    def group = ['a', 'b', 'bad', 'c', 'd'].collectEntries { [(it): batch(it)] }
    group.values().each { gc.submit(it) }
    transactions.release.countDown()
    ['a', 'b', 'c', 'd'].each { await(group[it].result()) }
    await(group.bad.result())

    then:
    ExecutionException e = thrown()
    e.cause.message.contains('bad row')

    and: 'every other batch committed, in transactions without the failing one'
    transactions.committed.flatten()*.account() as Set == ['blocker', 'a', 'b', 'c', 'd'] as Set
    transactions.committed.every { g -> !g*.account().contains('bad') }
    meters.counter('spinagent.cache.group.splits').count() >= 1
    meters.counter('spinagent.cache.batches.failed').count() == 1
  }

  def "a database that cannot be reached fails the whole group at once, without splitting it"() {
    given:
    def gc = committer(1)
    transactions.blockOn = 'blocker'

    when:
    gc.submit(batch('blocker'))
    transactions.started.await(30, TimeUnit.SECONDS)
    transactions.failure = new DataAccessException('no connection', new SQLNonTransientConnectionException('refused', '08001'))
    def group = ['a', 'b', 'c'].collect { batch(it) }
    group.each { gc.submit(it) }
    transactions.release.countDown()
    def failed = group.collect { b -> try { await(b.result()); false } catch (ExecutionException ignored) { true } }

    then:
    failed == [true, true, true]
    transactions.attempts.count { g -> g*.account().contains('a') } == 1
    meters.counter('spinagent.cache.group.splits').count() == 0
  }

  def "a deadlock runs the same group again, and so does a missing table once created"() {
    given:
    def gc = committer(1)
    transactions.failures = [new DataAccessException('deadlock', new SQLException('Deadlock found', '40001', 1213)),
                             new CacheTables.MissingTables(['pod'] as Set)]

    when:
    def b = batch('a')
    gc.submit(b)
    await(b.result())

    then:
    transactions.attempts.collect { g -> g*.account() } == [['a'], ['a'], ['a']]
    meters.counter('spinagent.cache.group.retries', 'reason', 'conflict').count() == 1
    meters.counter('spinagent.cache.group.retries', 'reason', 'missing_table').count() == 1
  }

  def "a purge is committed alone, after the account's batch before it"() {
    given:
    def gc = committer(1)
    transactions.blockOn = 'blocker'

    when:
    gc.submit(batch('blocker'))
    transactions.started.await(30, TimeUnit.SECONDS)
    def before = batch('a')
    def purge = new Work.Purge('a', { true }, new CompletableFuture<CommitOutcome>())
    def other = batch('b')
    [before, purge, other].each { gc.submit(it) }
    transactions.release.countDown()
    [before, other].each { await(it.result()) }
    await(purge.result())

    then:
    transactions.committed.collect { g -> g.collect { it instanceof Work.Purge ? 'purge a' : it.account() } } ==
        [['blocker'], ['a', 'b'], ['purge a']]
  }

  def "while other accounts stream, a large batch is committed in slices, one per transaction, the others' work taken between them; it is acknowledged once, with every slice's outcome"() {
    given: 'two accounts hand over large batches (both busy) while a third streams too'
    def gc = committer(1)
    await(submitted(gc, batch('other')).result())
    transactions.blockOn = 'first'
    def first = largeBatch('first', 2 * BatchSlices.MAX_CHANGES + 50)
    def second = largeBatch('second', 2 * BatchSlices.MAX_CHANGES + 50)

    when: "the second batch arrives while the first one's first slice commits"
    gc.submit(first)
    transactions.started.await(30, TimeUnit.SECONDS)
    gc.submit(second)

    then: 'the batch is not acknowledged while a slice is left'
    !first.result().isDone()

    when:
    transactions.release.countDown()
    def outcome = await(first.result())
    await(second.result())

    then: 'each transaction holds at most one slice of each batch'
    slices(transactions.committed) ==
        [['other:1'], ['first:100'], ['first:100', 'second:100'], ['first:50', 'second:100'], ['second:50']]

    and: 'in stream order'
    transactions.committed.findAll { g -> g*.account().contains('first') }
        .collect { g -> g.find { it.account() == 'first' }.entries()[0].sequence() } == [1L, 101L, 201L]

    and: 'one outcome for the batch, with each slice\'s'
    outcome.refused*.name == ['first', 'first', 'first']
    meters.timer('spinagent.cache.queue.wait').count() == 7
  }

  def "a quiet account's batch commits in a transaction of its own while a busy account's transaction runs, never sharing one with it"() {
    given: 'a cluster that has handed over hundreds of changes in the last second'
    def gc = committer(1)
    await(submitted(gc, batch('quiet', 1)).result())
    await(submitted(gc, largeBatch('flood', 400)).result())
    transactions.blockOn = 'flood'
    def flood = largeBatch('flood', 20)

    when: "the busy account's next transaction runs, and the quiet account and another hand over a change"
    gc.submit(flood)
    transactions.started.await(30, TimeUnit.SECONDS)
    def quiet = batch('quiet', 2)
    def other = batch('other', 1)
    gc.submit(quiet)
    gc.submit(other)
    await(quiet.result())
    await(other.result())

    then: 'both commit while the busy transaction has not finished'
    !flood.result().isDone()

    when:
    transactions.release.countDown()
    await(flood.result())

    then: 'no transaction mixes the busy account with the quiet ones'
    transactions.committed.every { g -> !g*.account().contains('flood') || g*.account() == ['flood'] }
    transactions.committed.flatten().count { it.account() != 'flood' } == 3
    meters.get('spinagent.cache.accounts.busy').gauge().value() == 1
  }

  def "an account is busy only while it streams: once it has quietened down its batches share transactions with the others again"() {
    given: 'a clock of our own'
    long now = 0
    def gc = new GroupCommitter(transactions, pool, 1, new WriterMetrics(meters), { now })
    await(submitted(gc, largeBatch('burst', 150)).result())

    expect:
    meters.get('spinagent.cache.accounts.busy').gauge().value() == 1

    when: 'three seconds later'
    now += 3_000_000_000L
    transactions.blockOn = 'blocker'
    gc.submit(batch('blocker'))
    transactions.started.await(30, TimeUnit.SECONDS)
    def burst = batch('burst', 151)
    def quiet = batch('quiet')
    [burst, quiet].each { gc.submit(it) }
    transactions.release.countDown()
    [burst, quiet].each { await(it.result()) }

    then:
    meters.get('spinagent.cache.accounts.busy').gauge().value() == 0
    transactions.committed.collect { g -> g*.account() } == [['burst'], ['blocker'], ['burst', 'quiet']]
  }

  def "an account streaming alone keeps a large batch whole, in one transaction"() {
    given:
    def gc = committer(1)
    def alone = largeBatch('alone', 2 * BatchSlices.MAX_CHANGES + 50)

    when:
    gc.submit(alone)
    await(alone.result())

    then:
    slices(transactions.committed) == [['alone:250']]
  }

  def "a slice that fails fails its batch, whose later slices are not written; the account's next batch commits"() {
    given:
    def gc = committer(1)
    await(submitted(gc, batch('other')).result())
    transactions.failing = ['flood'] as Set
    def flood = largeBatch('flood', 3 * BatchSlices.MAX_CHANGES)

    when:
    gc.submit(flood)
    await(flood.result())

    then:
    ExecutionException e = thrown()
    e.cause.message.contains('bad row')

    and: 'only the first slice was tried'
    transactions.attempts.collect { g -> g*.account() } == [['other'], ['flood']]

    when: 'the pipeline hands over what comes next'
    transactions.failing = [] as Set
    def next = batch('flood', 301)
    gc.submit(next)
    await(next.result())

    then:
    slices(transactions.committed) == [['other:1'], ['flood:1']]
  }

  def "with two committers, the slices of a batch still commit one after another while other accounts go ahead"() {
    given:
    def gc = committer(2)
    transactions.blockOn = 'flood'
    def flood = largeBatch('flood', BatchSlices.MAX_CHANGES + 1)
    await(submitted(gc, batch('other', 1)).result())

    when:
    gc.submit(flood)
    transactions.started.await(30, TimeUnit.SECONDS)
    def other = batch('other', 2)
    gc.submit(other)
    await(other.result())

    then: 'the second slice waits for the first'
    slices(transactions.attempts) == [['other:1'], ['flood:100'], ['other:1']]

    when:
    transactions.release.countDown()
    await(flood.result())

    then:
    slices(transactions.committed) == [['other:1'], ['other:1'], ['flood:100'], ['flood:1']]
  }

  /** Records each group; its outcomes name the accounts, so that a mix-up would show. */
  static class RecordingTransactions implements GroupCommitter.Transactions {
    final List<List<Work>> attempts = [].asSynchronized()
    final List<List<Work>> committed = [].asSynchronized()
    final CountDownLatch started = new CountDownLatch(1)
    final CountDownLatch release = new CountDownLatch(1)
    volatile String blockOn
    volatile Set<String> failing = [] as Set
    volatile RuntimeException failure
    List<RuntimeException> failures = [].asSynchronized()

    @Override
    void prepare(List<Work> group) {}

    @Override
    List<CommitOutcome> commit(List<Work> group) {
      attempts << new ArrayList<>(group)
      if (blockOn != null && group*.account().contains(blockOn)) {
        started.countDown()
        release.await(30, TimeUnit.SECONDS)
      }
      if (!failures.isEmpty()) {
        throw failures.remove(0)
      }
      if (failure != null && !group*.account().contains(blockOn)) {
        throw failure
      }
      if (group*.account().any { failing.contains(it) }) {
        throw new DataAccessException('a bad row', new SQLException('CONSTRAINT failed', '23000'))
      }
      committed << new ArrayList<>(group)
      group.collect { w ->
        new CommitOutcome([io.spinagent.protocol.v1.RefusedChange.newBuilder().setName(w.account()).build()], [])
      }
    }

    @Override
    boolean failed(List<Work> group, RuntimeException e) {
      CacheTables.MissingTables.in(e) != null
    }
  }
}
