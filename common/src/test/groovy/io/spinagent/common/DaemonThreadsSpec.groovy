package io.spinagent.common

import spock.lang.Specification

class DaemonThreadsSpec extends Specification {

  def "a named factory makes daemon threads that all carry the name, running what they are given"() {
    given:
    def ran = []
    def factory = DaemonThreads.named('spinagent-test')

    when:
    def first = factory.newThread { ran << 'first' }
    def second = factory.newThread { ran << 'second' }
    first.start()
    first.join()

    then:
    [first, second]*.name == ['spinagent-test', 'spinagent-test']
    [first, second]*.daemon == [true, true]
    ran == ['first']
  }

  def "a numbered factory counts its threads from 1, each factory on its own"() {
    given:
    def tunnel = DaemonThreads.numbered('spinagent-tunnel')
    def sink = DaemonThreads.numbered('spinagent-sink')

    expect:
    (1..3).collect { tunnel.newThread {}.name } == ['spinagent-tunnel-1', 'spinagent-tunnel-2', 'spinagent-tunnel-3']
    sink.newThread {}.name == 'spinagent-sink-1'
    sink.newThread {}.daemon
  }
}
