package io.spinagent.plugin.accounts

import io.spinagent.plugin.config.SpinAgentProperties
import java.time.Duration
import spock.lang.Specification

class ClouddriverAccountBridgeSpec extends Specification {

  def "a negative definition-retry-backoff is refused at start, naming the setting"() {
    given:
    def settings = new SpinAgentProperties.Accounts()
    settings.definitionRetryBackoff = Duration.ofSeconds(-1)

    when:
    new ClouddriverAccountBridge(null, Optional.empty(), settings, null, { it }, null)

    then:
    IllegalArgumentException e = thrown()
    e.message == 'spinagent.accounts.definition-retry-backoff must not be negative, not PT-1S'
  }
}
