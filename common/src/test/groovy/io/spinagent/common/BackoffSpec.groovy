package io.spinagent.common

import java.time.Duration
import spock.lang.Specification

class BackoffSpec extends Specification {

  def "delays grow by the multiplier from the first failure up to the cap"() {
    given:
    def backoff = Backoff.exponential(Duration.ofSeconds(1), 1.6, Duration.ofSeconds(5))

    expect:
    (1..6).collect { backoff.delay(it).toMillis() } == [1000L, 1600L, 2560L, 4096L, 5000L, 5000L]
  }

  def "doubling: the agent's watch retries, the plugin's commit and definition retries"() {
    expect:
    (1..7).collect { Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(30)).delay(it).toMillis() } ==
        [1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L]
    (1..9).collect { Backoff.doubling(Duration.ofMillis(250), Duration.ofSeconds(30)).delay(it).toMillis() } ==
        [250L, 500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L]
  }

  def "a long run of failures stays at the cap"() {
    expect:
    Backoff.doubling(Duration.ofMillis(250), Duration.ofSeconds(30)).delay(Integer.MAX_VALUE) == Duration.ofSeconds(30)
    Backoff.exponential(Duration.ofDays(1), 10, Duration.ofDays(365)).delay(1000) == Duration.ofDays(365)
  }

  def "a first delay above the cap is cut to the cap"() {
    expect:
    Backoff.doubling(Duration.ofMinutes(2), Duration.ofMinutes(1)).delay(1) == Duration.ofMinutes(1)
  }

  def "jitter spreads a delay by plus or minus the fraction"() {
    given:
    def backoff = Backoff.exponential(Duration.ofSeconds(1), 1.6, Duration.ofSeconds(120))

    expect: 'random 0.5 is the middle of the range'
    backoff.withJitter(0.2, { 0.5d }).delay(2).toMillis() == 1600
    backoff.withJitter(0.2, { 0d }).delay(1).toMillis() == 800
    backoff.withJitter(0.2, { 0.999999d }).delay(1).toMillis() in 1199L..1200L
    backoff.withJitter(0, { 0d }).delay(1).toMillis() == 1000
  }

  def "settings that cannot make a delay are refused, naming the setting"() {
    when:
    make()

    then:
    def e = thrown(IllegalArgumentException)
    e.message.contains(word)

    where:
    make                                                                                  | word
    ({ Backoff.exponential(Duration.ofSeconds(-1), 2, Duration.ofSeconds(1)) })           | 'negative'
    ({ Backoff.exponential(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(1)) })          | 'multiplier'
    ({ Backoff.exponential(Duration.ofSeconds(1), Double.NaN, Duration.ofSeconds(1)) })   | 'multiplier'
    ({ Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(2)).withJitter(1.5, { 0d }) }) | 'jitter'
    ({ Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(2)).delay(0) })         | 'failures'
  }
}
