package io.spinagent.plugin.grpc.session

import io.grpc.Status
import io.spinagent.plugin.cache.sql.SqlWriterFixture.MutableClock
import spock.lang.Specification

import java.time.Duration

/** Whether an agent is alive, on a clock the spec moves. */
class HeartbeatWatchSpec extends Specification {

  MutableClock clock = new MutableClock(1_700_000_000_000L)
  HeartbeatWatch watch = new HeartbeatWatch(Duration.ofSeconds(10), clock)

  def "an agent silent for up to three intervals is alive; past them, the session ends as UNAVAILABLE"() {
    when:
    clock.advance(30_000)

    then:
    !watch.silence(true).present

    when:
    clock.advance(1_000)
    def status = watch.silence(true).get()

    then:
    status.code == Status.Code.UNAVAILABLE
    status.description == 'no frame from the agent for 31s (heartbeat limit 30s)'
  }

  def "every frame from the agent starts its silence again"() {
    given:
    clock.advance(25_000)
    watch.frameReceived()

    when:
    clock.advance(25_000)

    then:
    !watch.silence(true).present
  }

  def "a session that is not reading counts no silence, and counts again from then when it reads"() {
    given:
    clock.advance(60_000)

    expect: 'not reading: the agent\'s heartbeats wait unread in the transport'
    !watch.silence(false).present

    when:
    clock.advance(30_000)

    then:
    !watch.silence(true).present

    when:
    clock.advance(1_000)

    then:
    watch.silence(true).present
  }

  def "the plugin's heartbeat is stamped with the clock"() {
    expect:
    watch.heartbeat().heartbeat.sentAtMillis == 1_700_000_000_000L
  }

  def "an agent is told the interval in whole seconds, rounded up, never 0"() {
    expect:
    new HeartbeatWatch(interval, clock).intervalSeconds() == seconds

    where:
    interval                  | seconds
    Duration.ofSeconds(10)    | 10
    Duration.ofMillis(1_500)  | 2
    Duration.ofMillis(200)    | 1
  }
}
