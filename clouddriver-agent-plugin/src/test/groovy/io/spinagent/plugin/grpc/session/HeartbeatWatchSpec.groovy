package io.spinagent.plugin.grpc.session

import io.grpc.Status
import io.spinagent.plugin.time.FakeClock
import java.time.Duration
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.lang.Tag

/** Whether an agent is alive, on a clock the spec moves, and its checks on that clock's scheduler. */
@Tag('one-class')
class HeartbeatWatchSpec extends Specification {

  FakeClock time = new FakeClock()
  HeartbeatWatch watch = new HeartbeatWatch(Duration.ofSeconds(10), time.clock)

  void advance(long millis) {
    time.forwardTime(millis, TimeUnit.MILLISECONDS)
  }

  def "an agent silent for up to three intervals is alive; past them, the session ends as UNAVAILABLE"() {
    when:
    advance(30_000)

    then:
    !watch.silence(true).present

    when:
    advance(1_000)
    def status = watch.silence(true).get()

    then:
    status.code == Status.Code.UNAVAILABLE
    status.description == 'no frame from the agent for 31s (heartbeat limit 30s)'
  }

  def "every frame from the agent starts its silence again"() {
    given:
    advance(25_000)
    watch.frameReceived()

    when:
    advance(25_000)

    then:
    !watch.silence(true).present
  }

  def "a session that is not reading counts no silence, and counts again from then when it reads"() {
    given:
    advance(60_000)

    expect: 'not reading: the agent\'s heartbeats wait unread in the transport'
    !watch.silence(false).present

    when:
    advance(30_000)

    then:
    !watch.silence(true).present

    when:
    advance(1_000)

    then:
    watch.silence(true).present
  }

  def "the plugin's heartbeat is stamped with the clock"() {
    given:
    advance(1_234)

    expect:
    watch.heartbeat().heartbeat.sentAtMillis == 1_234L
  }

  def "the session's check runs every interval until the session cancels it"() {
    given:
    int checks = 0
    def scheduled = watch.schedule(time.scheduler) { checks++ }

    when:
    advance(9_999)

    then:
    checks == 0

    when:
    advance(20_001)

    then: 'at 10s, 20s and 30s'
    checks == 3

    when:
    scheduled.cancel(false)
    advance(60_000)

    then:
    checks == 3
    time.pendingTasks() == 0
  }

  def "an agent is told the interval in whole seconds, rounded up, never 0"() {
    expect:
    new HeartbeatWatch(interval, time.clock).intervalSeconds() == seconds

    where:
    interval                  | seconds
    Duration.ofSeconds(10)    | 10
    Duration.ofMillis(1_500)  | 2
    Duration.ofMillis(200)    | 1
  }
}
