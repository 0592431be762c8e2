package io.spinagent.sandbox

import spock.lang.Specification

/** The sandbox's flags: what they set, and the message a wrong one stops it with. */
class SandboxOptionsSpec extends Specification {

  def "one Clouddriver replica by default; --replicas 2 asks for a second"() {
    expect:
    SandboxOptions.parse().replicas() == 1
    SandboxOptions.parse('--replicas', '2').replicas() == 2
    SandboxOptions.parse('--replicas', '1').replicas() == 1
  }

  def "a wrong --replicas stops the sandbox with a message naming it: #args"() {
    when:
    SandboxOptions.parse(args as String[])

    then:
    def refused = thrown(SandboxOptions.UsageException)
    refused.message == message

    where:
    args                          || message
    ['--replicas', '3']           || '--replicas must be 1 or 2, not 3'
    ['--replicas', '0']           || '--replicas must be 1 or 2, not 0'
    ['--replicas', 'two']         || "--replicas needs a number, not 'two'"
    ['--replicas']                || '--replicas needs a value'
  }
}
