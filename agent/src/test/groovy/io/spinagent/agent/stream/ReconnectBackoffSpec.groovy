package io.spinagent.agent.stream

import io.spinagent.agent.config.BackoffConfig
import java.time.Duration
import spock.lang.Specification

class ReconnectBackoffSpec extends Specification {

  def "delays grow by the multiplier up to the cap and start over after a reset"() {
    given: 'no jitter: random 0.5 is the middle of the range'
    def backoff = new ReconnectBackoff(new BackoffConfig(Duration.ofSeconds(1), 1.6, 0.2, Duration.ofSeconds(5)), { 0.5d })

    expect:
    (1..6).collect { backoff.nextDelay().toMillis() } == [1000L, 1600L, 2560L, 4096L, 5000L, 5000L]

    when:
    backoff.reset()

    then:
    backoff.nextDelay().toMillis() == 1000
  }

  def "jitter spreads a delay by plus or minus the fraction"() {
    given:
    def config = new BackoffConfig(Duration.ofSeconds(1), 1.6, 0.2, Duration.ofSeconds(120))

    expect:
    new ReconnectBackoff(config, { 0d }).nextDelay().toMillis() == 800
    new ReconnectBackoff(config, { 0.999999d }).nextDelay().toMillis() >= 1199L
    new ReconnectBackoff(config, { 0.999999d }).nextDelay().toMillis() <= 1200L
  }
}
