package io.spinagent.plugin.cache.sql

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.plugin.cache.format.FormatOptions
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.ResyncMarker
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.WatchProgress
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.Specification
import spock.lang.Tag

/**
 * An account's work in a transaction, for the rules it decides from what the writer holds in
 * memory: listings whose beginning this process did not see, resume points, and changes that the
 * remembered rows show to be stale or written already. The transaction's parts run on a jOOQ
 * context without a connection, so a statement would fail the feature: none of this reads or
 * writes the database. What the work writes and sweeps needs the tables, and is specified on real
 * databases ({@link SqlWriterPartsSpecification}).
 */
@Tag('one-class')
class AccountWorkSpec extends Specification {

  static final Kind DEPLOYMENT = Kind.newBuilder().setGroup('apps').setVersion('v1').setKind('Deployment').setPlural('deployments').build()
  /** Not among the kinds cached by default. */
  static final Kind CONFIG_MAP = Kind.newBuilder().setVersion('v1').setKind('ConfigMap').setPlural('configmaps').build()
  static final int FORMAT = Derivation.formatOf(FormatOptions.DEFAULTS)

  DSLContext detached = DSL.using(SQLDialect.MYSQL)
  CacheTables tables = new CacheTables(detached, null)
  CommittedRows committed = new CommittedRows(1_000)
  RowTally tally = new RowTally()
  List<Derivation.Reason> refusals = []
  AccountMemory memory = new AccountMemory('prod')
  ObjectVersions versions
  BodyRows bodies

  /** The account's work in a new transaction. */
  AccountWork newWork() {
    versions = new ObjectVersions(detached, new ObjectVersions.UpsertSql(detached), committed, 0, tally)
    bodies = new BodyRows(detached, new BodyRows.UpsertSql(detached), 0, tally)
    def relationships = new RelationshipRows(detached, new RelationshipRows.InsertSql(detached), tables, committed, 0, tally)
    def logical = new LogicalRows(detached, tables, bodies, relationships, new ObjectMapper(), 0)
    new AccountWork(memory, FormatOptions.DEFAULTS,
      new GroupTransaction.Parts(tables, CachedKinds.defaults(), versions, bodies, relationships, logical, refusals))
  }

  /** Nothing queued: writing the queues runs no statement (one would fail on this context). */
  boolean nothingQueued() {
    versions.flush()
    bodies.queued() == 0
  }

  /** What an earlier transaction left in spinagent_objects for web, as this process remembers it. */
  void remembered(String resourceVersion, boolean deleted = false) {
    committed.rememberObject(memory.take().scope(), ObjectVersions.Key.of('prod', DEPLOYMENT, 'default', 'web').cacheKey(),
      new ObjectVersions.Version(resourceVersion, deleted, FORMAT))
  }

  static ObjectChange change(String resourceVersion, Map fields = [:]) {
    ObjectChange.newBuilder().setSequence(7).setKind(fields.kind ?: DEPLOYMENT).setNamespace('default')
      .setName(fields.name ?: 'web').setResourceVersion(resourceVersion)
      .setType(fields.delete ? ChangeType.CHANGE_TYPE_DELETE : ChangeType.CHANGE_TYPE_UPSERT).build()
  }

  static ResyncMarker marker(ResyncPhase phase, String resyncId, Kind kind = DEPLOYMENT) {
    ResyncMarker.newBuilder().setAccount('prod').setKind(kind).setPhase(phase).setResyncId(resyncId).build()
  }

  static WatchProgress progress(String resourceVersion) {
    WatchProgress.newBuilder().setKind(DEPLOYMENT).setResourceVersion(resourceVersion).build()
  }

  def "a kind's progress becomes its resume point, the latest one winning; one that does not fit the table is left out"() {
    given:
    def work = newWork()

    when:
    work.progress(progress('41'))
    work.progress(progress('42'))
    work.progress(progress('4' * 100))

    then:
    work.resumeChanges().collect { [it.kind(), it.progress()?.resourceVersion] } == [[DEPLOYMENT, '42']]
    nothingQueued()
  }

  def "the end of a listing whose beginning this process did not see asks for the kind again and drops its resume point; until that listing, its progress is not kept"() {
    given:
    def work = newWork()
    work.progress(progress('41'))

    when:
    work.marker(marker(ResyncPhase.RESYNC_PHASE_END, 'listed-elsewhere'))
    work.progress(progress('42'))

    then:
    work.outcome().relistRequired() == [DEPLOYMENT]
    work.resumeChanges().collect { [it.kind(), it.progress()] } == [[DEPLOYMENT, null]]

    when: 'the next transaction, after this one committed'
    work.install()
    def next = newWork()
    next.progress(progress('43'))

    then:
    next.resumeChanges().isEmpty()
    next.outcome().relistRequired().isEmpty()
    nothingQueued()
  }

  def "a listing's end with another listing's id is no end of the listing that began"() {
    given:
    def work = newWork()
    work.marker(marker(ResyncPhase.RESYNC_PHASE_BEGIN, 'first'))

    when:
    work.marker(marker(ResyncPhase.RESYNC_PHASE_END, 'second'))

    then:
    work.outcome().relistRequired() == [DEPLOYMENT]
  }

  def "a change older than the row remembered is skipped, and one at its version in this format writes nothing"() {
    given:
    remembered('100')
    def work = newWork()

    when:
    work.change(change('99'), null)

    then:
    work.unchangedObjects() == 0
    nothingQueued()

    when:
    work.change(change('100'), null)

    then:
    work.unchangedObjects() == 1
    work.outcome().refused().isEmpty()
    nothingQueued()
  }

  def "a delete of an object whose tombstone is at that version writes nothing"() {
    given:
    remembered('100', true)
    def work = newWork()

    when:
    work.change(change('100', [delete: true]), null)

    then:
    work.unchangedObjects() == 1
    nothingQueued()
  }

  def "a change whose names are too long for spinagent_objects is refused, reported with the commit, and writes nothing"() {
    given:
    def work = newWork()

    when:
    work.change(change('5', [name: 'w' * 254]), null)

    then:
    def refused = work.outcome().refused()
    refused*.name == ['w' * 254]
    refused[0].sequence == 7
    refused[0].reason == 'names too long for spinagent_objects'
    refusals == [Derivation.Reason.TOO_LONG]
    nothingQueued()
  }

  def "what a kind not cached sends is ignored, unread"() {
    given:
    def work = newWork()

    when: 'no remembered row: reading one would need the database'
    work.change(change('5', [kind: CONFIG_MAP]), null)
    work.marker(marker(ResyncPhase.RESYNC_PHASE_END, 'listed-elsewhere', CONFIG_MAP))

    then:
    work.outcome().refused().isEmpty()
    work.outcome().relistRequired().isEmpty()
    nothingQueued()
  }
}
