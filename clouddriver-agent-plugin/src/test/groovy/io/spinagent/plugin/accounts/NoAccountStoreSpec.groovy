package io.spinagent.plugin.accounts

import spock.lang.Specification

/** A Clouddriver without a SQL database: accounts are the registry's only, dynamic ones refused. */
class NoAccountStoreSpec extends Specification {

  AccountStore store = AccountStore.NONE

  def "reads find nothing"() {
    expect:
    store.find('prod').isEmpty()
    store.find(['prod', 'dev']) == [:]
    store.all() == []
    store.states() == [:]
    store.dynamicAccounts() == []
    store.countDynamic('agent-a', null) == 0
  }

  def "what only changes a record changes nothing, and says nothing"() {
    when:
    store.setInactive('prod', true)
    store.recordFailure('prod', 'unreachable')
    store.markRemoved('prod')
    store.delete('prod')

    then:
    noExceptionThrown()
    store.find('prod').isEmpty()
  }

  def "storing a dynamic account is refused with 503, naming the database"() {
    when:
    action(store)

    then:
    def refused = thrown(AccountRequestException)
    refused.problem() == AccountRequestException.Problem.UNAVAILABLE
    refused.message.contains("dynamic accounts need Clouddriver's SQL database (sql.enabled: true)")

    where:
    action << [
      { AccountStore s -> s.requireDynamicAccounts() },
      { AccountStore s -> s.insertDynamic(null, AccountSource.API) },
      { AccountStore s -> s.updateDynamic(null) },
    ]
  }
}
