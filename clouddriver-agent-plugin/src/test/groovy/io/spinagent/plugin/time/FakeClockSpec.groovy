package io.spinagent.plugin.time

import java.time.Instant
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class FakeClockSpec extends Specification {

  FakeClock time = new FakeClock()
  List<String> ran = []

  def "nothing runs until the spec runs it; then tasks run as they fall due, in the order handed"() {
    given:
    time.scheduler.schedule({ -> ran << 'timer 10ms' }, 10, TimeUnit.MILLISECONDS)
    time.executor.execute { ran << 'first'; time.executor.execute { ran << 'handed on' } }
    time.scheduler.execute { ran << 'second' }

    expect:
    ran.isEmpty()
    time.runDueTasks() == 3
    ran == ['first', 'second', 'handed on']

    when:
    time.forwardTime(9, TimeUnit.MILLISECONDS)

    then:
    ran.size() == 3
    time.nanoTime.asLong == TimeUnit.MILLISECONDS.toNanos(9)

    when:
    time.forwardTime(1, TimeUnit.MILLISECONDS)

    then:
    ran.last() == 'timer 10ms'
    time.pendingTasks() == 0
    time.clock.instant() == Instant.EPOCH.plusMillis(10)
  }

  def "a timer sees the time it was due, and what it schedules runs later in the same step if due"() {
    given:
    time.scheduler.schedule({ ->
      ran << "at ${time.nanoTime.asLong}"
      time.scheduler.schedule({ -> ran << "then at ${time.nanoTime.asLong}" }, 5, TimeUnit.NANOSECONDS)
    }, 10, TimeUnit.NANOSECONDS)

    when:
    time.forwardTime(100, TimeUnit.NANOSECONDS)

    then:
    ran == ['at 10', 'then at 15']
    time.nanoTime.asLong == 100
  }

  def "a waiting task can be cancelled; a task that ran cannot"() {
    given:
    def waiting = time.scheduler.schedule({ -> ran << 'waiting' }, 1, TimeUnit.SECONDS)
    def now = time.scheduler.schedule({ -> ran << 'now' }, 0, TimeUnit.SECONDS)
    time.runDueTasks()

    expect:
    !now.cancel(false)
    now.done
    waiting.cancel(false)
    waiting.cancelled
    time.forwardTime(1, TimeUnit.SECONDS) == 0
    ran == ['now']
  }

  def "a periodic task runs each period, at the time it is due, until it is cancelled"() {
    given:
    def periodic = time.scheduler.scheduleAtFixedRate({ -> ran << "at ${time.nanoTime.asLong}".toString() }, 10, 5, TimeUnit.NANOSECONDS)

    when:
    time.forwardTime(24, TimeUnit.NANOSECONDS)

    then:
    ran == ['at 10', 'at 15', 'at 20']
    !periodic.done

    when:
    periodic.cancel(false)
    time.forwardTime(100, TimeUnit.NANOSECONDS)

    then:
    ran.size() == 3
    periodic.cancelled
    time.pendingTasks() == 0
  }

  def "a periodic task may cancel itself as it runs"() {
    given:
    def runs = 0
    def periodic
    periodic = time.scheduler.scheduleWithFixedDelay({ -> if (++runs == 2) { periodic.cancel(false) } }, 1, 1, TimeUnit.SECONDS)

    when:
    time.forwardTime(1, TimeUnit.MINUTES)

    then:
    runs == 2
    time.pendingTasks() == 0
  }
}
