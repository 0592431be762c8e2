package io.spinagent.plugin.http

import spock.lang.Specification

class SlowClientsSpec extends Specification {

  String before = System.getProperty(SlowClients.PROPERTY)

  def cleanup() {
    before == null ? System.clearProperty(SlowClients.PROPERTY) : System.setProperty(SlowClients.PROPERTY, before)
  }

  def "clients that never finish their request are disconnected after 30 seconds unless the operator chose otherwise"() {
    when:
    System.clearProperty(SlowClients.PROPERTY)
    SlowClients.disconnect()

    then:
    System.getProperty(SlowClients.PROPERTY) == '30'

    when:
    System.setProperty(SlowClients.PROPERTY, '120')
    SlowClients.disconnect()

    then:
    System.getProperty(SlowClients.PROPERTY) == '120'
  }
}
