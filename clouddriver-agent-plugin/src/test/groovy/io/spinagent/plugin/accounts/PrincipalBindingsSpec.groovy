package io.spinagent.plugin.accounts

import io.spinagent.plugin.config.SpinAgentProperties
import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class PrincipalBindingsSpec extends Specification {

  static BindingPolicy policy(Map<String, String> alsoAllowed = [:]) {
    def binding = new SpinAgentProperties.Binding()
    binding.alsoAllowed = alsoAllowed.collect { principal, accounts ->
      def entry = new SpinAgentProperties.AlsoAllowed()
      entry.principal = principal
      entry.accounts = accounts
      entry
    }
    BindingPolicy.from(binding)
  }

  def "the first principal to claim an account holds it; later claims read the holder"() {
    given:
    def principals = new PrincipalBindings(AccountBindings.inMemory(), policy())

    expect:
    principals.bind(['a', 'b'], 'CN=agent-1') == [a: 'CN=agent-1', b: 'CN=agent-1']
    principals.bind(['a', 'c'], 'CN=agent-2') == [a: 'CN=agent-1', c: 'CN=agent-2']

    when: "the account is deleted"
    principals.unbind('a')

    then: "the next claimer binds it"
    principals.bind(['a'], 'CN=agent-2') == [a: 'CN=agent-2']
  }

  def "the holder may serve its account, another principal only where the operator allows it"() {
    given:
    def principals = new PrincipalBindings(AccountBindings.inMemory(), policy(['CN=ops-.*': 'prod-.*']))

    expect:
    principals.refusal('prod-1', 'CN=agent-1', 'CN=agent-1') == null
    principals.refusal('prod-1', 'CN=agent-1', 'CN=ops-2') == null

    and: "a refusal names the holder, the claimer and the three ways out"
    with(principals.refusal('dev-1', 'CN=agent-1', 'CN=ops-2')) {
      contains("account 'dev-1' is bound to principal 'CN=agent-1'")
      contains("this agent's principal is 'CN=ops-2'")
      contains('spinagent.accounts.binding.also-allowed')
      contains('DELETE /spinagent/accounts/dev-1')
    }

    and: "an account removed while it was claimed is claimed again later"
    principals.refusal('prod-1', null, 'CN=agent-1').contains('was removed while this agent claimed it')
  }

  def "bindings that cannot be read are reported naming the accounts, at most five of them"() {
    given:
    def failing = new AccountBindings() {
      @Override
      Map<String, String> bind(Collection<String> accounts, String principal) {
        throw new IllegalStateException('test: database down')
      }

      @Override
      void unbind(String account) {
      }
    }
    def principals = new PrincipalBindings(failing, policy())

    when:
    principals.bind(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'], 'CN=agent-1')

    then:
    def e = thrown(BindingUnavailableException)
    e.message == 'cannot read or record the principals bound to accounts [a1, a2, a3, a4, a5] and 2 more: test: database down'
  }
}
