package io.spinagent.plugin.accounts

import io.spinagent.plugin.config.SpinAgentProperties
import java.time.Duration
import spock.lang.Specification

class ClouddriverAccountBridgeSpec extends Specification {

  def "a timing that cannot work is refused at start, naming the setting"() {
    given:
    def settings = new SpinAgentProperties.Accounts()
    settings."$key" = value

    when:
    new ClouddriverAccountBridge(null, Optional.empty(), settings, null, { it }, null, null)

    then:
    IllegalArgumentException e = thrown()
    e.message == message

    where:
    key                       | value                  || message
    'definitionRetryBackoff'  | Duration.ofSeconds(-1) || 'spinagent.accounts.definition-retry-backoff must not be negative, not PT-1S'
    'definitionCheckInterval' | Duration.ZERO          || 'spinagent.accounts.definition-check-interval must be positive, not PT0S'
  }
}
