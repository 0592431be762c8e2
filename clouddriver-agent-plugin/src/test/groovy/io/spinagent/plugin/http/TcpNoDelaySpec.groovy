package io.spinagent.plugin.http

import spock.lang.Specification

/** The switch the JDK HTTP server reads for TCP_NODELAY: set for the tunnel unless the operator chose. */
class TcpNoDelaySpec extends Specification {

  String before = System.getProperty(TcpNoDelay.PROPERTY)

  def cleanup() {
    before == null ? System.clearProperty(TcpNoDelay.PROPERTY) : System.setProperty(TcpNoDelay.PROPERTY, before)
  }

  def "turned on when nobody set it, and an operator's explicit value is kept"() {
    when:
    System.clearProperty(TcpNoDelay.PROPERTY)
    TcpNoDelay.enable()

    then:
    System.getProperty(TcpNoDelay.PROPERTY) == 'true'

    when:
    System.setProperty(TcpNoDelay.PROPERTY, 'false')
    TcpNoDelay.enable()

    then:
    System.getProperty(TcpNoDelay.PROPERTY) == 'false'
  }
}
