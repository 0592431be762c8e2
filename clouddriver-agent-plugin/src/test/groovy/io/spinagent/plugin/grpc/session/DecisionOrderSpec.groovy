package io.spinagent.plugin.grpc.session

import io.spinagent.protocol.v1.AccountDecision
import java.util.function.Consumer
import spock.lang.Specification
import spock.lang.Tag

/** What an agent hears about its accounts, in the order it was decided; no threads. */
@Tag('one-class')
class DecisionOrderSpec extends Specification {

  List<String> sent = []
  DecisionOrder order = new DecisionOrder({ AccountDecision d -> sent << "${d.account} ${d.accepted ? 'granted' : 'refused'}".toString() } as Consumer)

  static AccountDecision decision(String account, boolean accepted) {
    AccountDecision.newBuilder().setAccount(account).setAccepted(accepted).build()
  }

  def "with no claim being decided, a changed decision is sent at once"() {
    when:
    order.changed(decision('prod', true))

    then:
    sent == ['prod granted']
  }

  def "a decision changed while a claim is decided is sent after the claim's answer"() {
    when: 'the account is switched on while its claim is refused as switched off'
    order.claim {
      order.changed(decision('prod', true))
      sent << 'prod refused (the answer)'
    }

    then:
    sent == ['prod refused (the answer)', 'prod granted']
  }

  def "held decisions wait for the last of overlapping claims, and are sent when a claim fails"() {
    when:
    order.claim {
      order.claim {
        order.changed(decision('prod', true))
        sent << 'inner answer'
      }
      assert sent == ['inner answer']
      throw new IllegalStateException('the binding cannot be read')
    }

    then:
    thrown(IllegalStateException)
    sent == ['inner answer', 'prod granted']

    when: 'afterwards decisions go at once again'
    order.changed(decision('dev', false))

    then:
    sent.last() == 'dev refused'
  }
}
