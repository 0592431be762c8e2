package io.spinagent.plugin.tunnel.history

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.store.SpinAgentSchema
import io.spinagent.testkit.db.EmbeddedDatabase
import java.sql.Connection
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.time.ZoneOffset
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.Shared
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The operation history in a real database; subclasses choose the engine. Writes are asynchronous,
 * so specs wait for rows to appear rather than for time to pass.
 */
abstract class SqlOperationHistorySpecification extends Specification {

  static final Instant NOW = Instant.parse('2026-11-22T07:00:00Z')

  @Shared EmbeddedDatabase db
  @Shared DSLContext jooq

  SimpleMeterRegistry meters = new SimpleMeterRegistry()
  OperationHistoryProperties properties = new OperationHistoryProperties()
  PollingConditions eventually = new PollingConditions(timeout: 20, delay: 0.05)
  SqlOperationHistory history

  abstract EmbeddedDatabase startDatabase()

  /** Statements that make {@code connection} hold a lock every insert into the table waits for. */
  abstract List<String> lockTable()

  def setupSpec() {
    db = startDatabase()
    SpinAgentSchema.migrate(db.dataSource())
    jooq = DSL.using(db.dataSource(), SQLDialect.valueOf(db.dialect()))
  }

  def cleanupSpec() {
    db?.close()
  }

  def setup() {
    jooq.execute('delete from spinagent_operations')
  }

  def cleanup() {
    history?.close()
  }

  def "operations are written in the background and read back newest first, filtered and a page at a time"() {
    given:
    history = newHistory()

    when:
    history.record(operation('prod', 200, NOW.minusSeconds(50), 'get'))
    history.record(operation('prod', 403, NOW.minusSeconds(40), 'patch'))
    history.record(operation('staging', 200, NOW.minusSeconds(30), 'list'))
    history.record(operation('prod', 404, NOW.minusSeconds(20), 'get'))
    history.record(operation('prod', 201, NOW.minusSeconds(10), 'create'))

    then:
    eventually.eventually { assert rows() == 5 }

    when:
    def all = history.find(new OperationQuery(null, null, null, 0, 10))

    then: 'every column comes back as written'
    all.storage() == 'sql'
    all.operations()*.status() == [201, 404, 200, 403, 200]
    all.nextOffset() == null
    with(all.operations()[0]) {
      account() == 'prod'
      method() == 'POST'
      verb() == 'create'
      path() == '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl'
      timeToFirstByteMs() == 12
      durationMs() == 15
      replica() == '1@clouddriver-0'
      agentId() == 'agent-1'
      startedAt() == NOW.minusSeconds(10)
    }

    expect: 'filters by account, status (exact or class) and start'
    history.find(new OperationQuery('staging', null, null, 0, 10)).operations()*.verb() == ['list']
    history.find(new OperationQuery('prod', OperationQuery.StatusFilter.parse('4xx'), null, 0, 10))
      .operations()*.status() == [404, 403]
    history.find(new OperationQuery(null, OperationQuery.StatusFilter.parse('200'), null, 0, 10))
      .operations()*.account() == ['staging', 'prod']
    history.find(new OperationQuery(null, null, NOW.minusSeconds(30), 0, 10)).operations().size() == 3

    and: 'pages follow each other'
    def first = history.find(new OperationQuery('prod', null, null, 0, 2))
    first.operations()*.status() == [201, 404]
    first.nextOffset() == 2
    def second = history.find(new OperationQuery('prod', null, null, first.nextOffset(), 2))
    second.operations()*.status() == [403, 200]
    second.nextOffset() == null
  }

  def "rows older than the maximum age are purged"() {
    given:
    properties.maxAge = Duration.ofDays(7)
    history = newHistory()

    when:
    history.record(operation('prod', 200, NOW.minus(Duration.ofDays(8)), 'get'))
    history.record(operation('prod', 200, NOW.minus(Duration.ofDays(6)), 'list'))
    eventually.eventually { assert rows() == 2 }
    def purged = history.purge()

    then:
    purged == 1
    history.find(new OperationQuery(null, null, null, 0, 10)).operations()*.verb() == ['list']
  }

  def "a database that does not keep up costs operations, counted, never a waiting request"() {
    given: 'a queue of three and a table another session has locked'
    properties.queueSize = 3
    history = newHistory()
    Connection locker = db.dataSource().connection
    locker.autoCommit = false
    lockTable().each { statement -> locker.createStatement().withCloseable { it.execute(statement) } }

    when: 'twenty operations end while inserts wait for the lock'
    20.times { history.record(operation('prod', 200, NOW.plusMillis(it), 'get')) }

    then: 'at most a batch in the writer (the one it polled, and a queue it drained) and a full queue are kept: the rest are dropped at once'
    dropped() >= 20 - (1 + 3) - 3

    when: 'the database recovers'
    locker.commit()
    locker.close()

    then: 'what was kept is written, and kept plus dropped account for every operation'
    eventually.eventually { assert rows() + dropped() == 20 }
  }

  /** A history as the plugin starts it, with the context. */
  SqlOperationHistory newHistory() {
    new SqlOperationHistory(jooq, properties, meters, Clock.fixed(NOW, ZoneOffset.UTC)).tap { start() }
  }

  long rows() {
    jooq.fetchCount(DSL.table('spinagent_operations'))
  }

  long dropped() {
    meters.counter('spinagent.operations.history.dropped', 'reason', 'queue-full').count() as long
  }

  static OperationRecord operation(String account, int status, Instant startedAt, String verb) {
    def method = [get: 'GET', list: 'GET', patch: 'PATCH', create: 'POST'][verb]
    new OperationRecord(account, method, verb, '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl',
      status, 12, 15, '1@clouddriver-0', 'agent-1', startedAt)
  }
}
