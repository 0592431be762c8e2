package io.spinagent.plugin.http

import spock.lang.Specification
import spock.lang.Unroll

/**
 * The system properties the JDK HTTP server reads once per JVM, which the plugin sets for its
 * tunnel and forwarding endpoint unless the operator chose a value.
 */
class JdkServerPropertiesSpec extends Specification {

  Map<String, String> before = [TcpNoDelay.PROPERTY, SlowClients.PROPERTY].collectEntries { [(it): System.getProperty(it)] }

  def cleanup() {
    before.each { name, value -> value == null ? System.clearProperty(name) : System.setProperty(name, value) }
  }

  @Unroll
  def "#property is #set when nobody set it, and an operator's explicit value is kept"() {
    when:
    System.clearProperty(property)
    apply()

    then:
    System.getProperty(property) == set

    when:
    System.setProperty(property, operators)
    apply()

    then:
    System.getProperty(property) == operators

    where:
    property              | apply                         | set    | operators
    TcpNoDelay.PROPERTY   | { -> TcpNoDelay.enable() }     | 'true' | 'false'
    SlowClients.PROPERTY  | { -> SlowClients.disconnect() } | '30'   | '120'
  }
}
