package io.spinagent.plugin.web

import io.spinagent.plugin.accounts.AccountRequestException
import io.spinagent.plugin.tunnel.history.InMemoryOperationHistory
import io.spinagent.plugin.tunnel.history.OperationRecord
import java.time.Clock
import java.time.Instant
import java.time.ZoneOffset
import spock.lang.Specification
import spock.lang.Tag

/** {@code GET /spinagent/operations} over the in-memory history (Clouddriver without a database). */
@Tag('one-class')
class OperationsControllerSpec extends Specification {

  static final Instant NOW = Instant.parse('2026-11-22T07:00:00Z')

  InMemoryOperationHistory history = new InMemoryOperationHistory(4)
  OperationsController controller = new OperationsController(history, Clock.fixed(NOW, ZoneOffset.UTC))

  def "without a database the newest operations are kept, up to the configured number"() {
    when:
    (1..6).each { history.record(operation('prod', 200, NOW.minusSeconds(60 - it))) }
    def page = controller.operations(null, null, null, 0, 100)

    then:
    page.storage() == 'memory'
    page.operations()*.startedAt() == (6..3).collect { NOW.minusSeconds(60 - it) }
  }

  def "filters by account, status and since (an instant or an age), a page at a time"() {
    given:
    history.record(operation('prod', 200, NOW.minusSeconds(3600)))
    history.record(operation('prod', 403, NOW.minusSeconds(600)))
    history.record(operation('staging', 503, NOW.minusSeconds(120)))
    history.record(operation('prod', 404, NOW.minusSeconds(60)))

    expect:
    controller.operations('prod', null, null, 0, 100).operations()*.status() == [404, 403, 200]
    controller.operations(null, '4xx', null, 0, 100).operations()*.status() == [404, 403]
    controller.operations(null, '503', null, 0, 100).operations()*.account() == ['staging']
    controller.operations(null, null, '15m', 0, 100).operations()*.status() == [404, 503, 403]
    controller.operations(null, null, 'PT5M', 0, 100).operations()*.status() == [404, 503]
    controller.operations(null, null, NOW.minusSeconds(100).toString(), 0, 100).operations()*.status() == [404]

    when:
    def first = controller.operations('prod', null, null, 0, 2)
    def second = controller.operations('prod', null, null, first.nextOffset(), 2)

    then:
    first.operations()*.status() == [404, 403]
    first.nextOffset() == 2
    second.operations()*.status() == [200]
    second.nextOffset() == null
  }

  def "bad parameters are refused with a message naming the problem"() {
    when:
    controller.operations(null, status, since, offset, limit)

    then:
    def e = thrown(AccountRequestException)
    ApiErrors.statusOf(e.problem()).value() == 400
    e.message.contains(message)

    where:
    status | since       | offset | limit || message
    'oops' | null        | 0      | 10    || "status 'oops' is neither an HTTP status (403) nor a class of them (4xx)"
    null   | 'yesterday' | 0      | 10    || "since 'yesterday' is neither an instant"
    null   | null        | -1     | 10    || 'offset must not be negative'
    null   | null        | 0      | 0     || 'limit must be between 1 and 1000'
    null   | null        | 0      | 5000  || 'limit must be between 1 and 1000'
  }

  static OperationRecord operation(String account, int status, Instant startedAt) {
    new OperationRecord(account, 'GET', 'get', '/api/v1/namespaces/default/pods/web', status, 3, 4,
      '1@clouddriver-0', 'agent-1', startedAt)
  }
}
