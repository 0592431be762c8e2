package io.spinagent.common

import spock.lang.Specification

class HopByHopHeadersSpec extends Specification {

  def "a relay keeps the hop-by-hop and framing headers to itself, and the ones it names in any case"() {
    when:
    def kept = HopByHopHeaders.and('Authorization', 'X-SpinAgent-Secret')

    then:
    kept == ['host', 'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
             'content-length', 'authorization', 'x-spinagent-secret'] as Set
  }

  def "the names cannot be changed by whoever holds them"() {
    when:
    HopByHopHeaders.and().add('accept')

    then:
    thrown(UnsupportedOperationException)
  }
}
