package io.spinagent.plugin.web

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.AccountTable
import io.spinagent.plugin.accounts.AgentAccount
import io.spinagent.plugin.accounts.ClusterIdentity
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.store.SpinAgentSchema
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import io.spinagent.testkit.db.EmbeddedPostgreSql
import java.time.Clock
import java.time.Instant
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The account listing's pages: the shared table's rows on a real PostgreSQL, overlaid with the
 * live state of the accounts a real session serves on this replica.
 */
class AccountViewsSpec extends Specification {

  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared DSLContext jooq
  @Shared AccountTable table

  @AutoCleanup
  ChannelFixture fixture = ChannelFixture.inProcess()

  PollingConditions eventually = new PollingConditions(timeout: 10)

  def setupSpec() {
    jooq = DSL.using(db.dataSource(), SQLDialect.POSTGRES)
    SpinAgentSchema.migrate(jooq)
    table = new AccountTable(jooq, Clock.systemUTC())
  }

  def cleanup() {
    jooq.deleteFrom(DSL.table('spinagent_accounts')).execute()
  }

  def "a page holds the matching accounts in name order, the live state overriding the stored one, and counts them all"() {
    given: 'rows other replicas wrote, one of them for an account this replica now serves'
    stored('prod', AccountState.ORPHANED)
    ['b-2': AccountState.ACTIVE, 'a-1': AccountState.ACTIVE, 'Z-0': AccountState.ACTIVE, 'c-3': AccountState.INACTIVE,
     'gone': AccountState.REMOVED].each { name, state -> stored(name, state) }

    and: 'a session here serves prod (stored ORPHANED) and live-only, which has no row'
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod'), account('live-only')]).next(WELCOME)
    ['prod', 'live-only'].each {
      agent.resync(it, 1, ResyncPhase.RESYNC_PHASE_BEGIN).resync(it, 2, ResyncPhase.RESYNC_PHASE_END)
      agent.awaitAck(it, 2)
    }
    eventually {
      assert fixture.accounts.find('prod').get().state() == AccountState.ACTIVE
      assert fixture.accounts.find('live-only').get().state() == AccountState.ACTIVE
    }
    def views = new AccountViews(fixture.accounts, table, 'replica-here')

    when:
    def first = views.page(AccountState.ACTIVE, 0, 2)
    def second = views.page(AccountState.ACTIVE, 2, 2)
    def third = views.page(AccountState.ACTIVE, 4, 2)
    def past = views.page(AccountState.ACTIVE, 6, 2)

    then: 'natural name order (upper case first), whatever the database collation'
    [first, second, third, past]*.total == [5, 5, 5, 5]
    first.views()*.name() == ['Z-0', 'a-1']
    second.views()*.name() == ['b-2', 'live-only']
    third.views()*.name() == ['prod']
    past.views().isEmpty()

    and: 'prod shows this replica serving it; a row of another replica shows that replica'
    third.views()[0].state() == 'ACTIVE'
    third.views()[0].ownerReplica() == 'replica-here'
    third.views()[0].cluster().apiServerHost() == 'https://10.0.0.1:6443'
    first.views()[1].ownerReplica() == 'replica-elsewhere'

    and: 'the stored ORPHANED state of prod no longer counts'
    views.page(AccountState.ORPHANED, 0, 10).total() == 0

    and: 'without a state every account but the removed ones'
    views.page(null, 0, 100).views()*.name() == ['Z-0', 'a-1', 'b-2', 'c-3', 'live-only', 'prod']
    views.page(null, 0, 100).total() == 6
    views.page(AccountState.REMOVED, 0, 100).views()*.name() == ['gone']
    views.page(AccountState.INACTIVE, 0, 100).views()*.state() == ['INACTIVE']
  }

  def "an account switched off through another replica stays off when its agent moves here"() {
    given: 'another replica served prod, and an operator switched it off there'
    stored('prod', AccountState.ACTIVE)
    table.setInactive('prod', true)
    fixture.switchedOffRecord = table
    fixture.start()
    def views = new AccountViews(fixture.accounts, table, 'replica-here')

    when: 'its agent connects here'
    def decision = fixture.agent().hello('agent-1', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then: 'the claim is refused as switched off, and this replica shows it so'
    !decision.accepted
    decision.reason.contains('INACTIVE')
    fixture.accounts.find('prod').get().state() == AccountState.INACTIVE
    views.find('prod').get().state() == 'INACTIVE'
  }

  def "an account switched off here and on through another replica shows the row, and is served when its agent returns"() {
    given: 'this replica switched prod off while its agent was here'
    fixture.switchedOffRecord = table
    fixture.start()
    def views = new AccountViews(fixture.accounts, table, 'replica-here')
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
    table.setInactive('prod', true) // the record first, as DynamicAccounts switches
    fixture.accounts.deactivate('prod')

    when: 'the agent moves to another replica, where an operator switches the account on'
    agent.complete()
    eventually {
      assert fixture.accounts.find('prod').get().agentIds().isEmpty()
    }
    table.setInactive('prod', false)
    stored('prod', AccountState.ACTIVE)

    then: 'this replica, no longer serving it, shows the shared row'
    views.find('prod').get().state() == 'ACTIVE'
    views.find('prod').get().ownerReplica() == 'replica-elsewhere'

    when: 'the agent comes back here'
    def decision = fixture.agent().hello('agent-1', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then: 'the account is served, as the record says'
    decision.accepted
    decision.role == Role.ROLE_CACHING
    views.find('prod').get().ownerReplica() == 'replica-here'
  }

  def "the table reads the states of all its accounts, and whole rows of only the names asked for"() {
    given:
    stored('one', AccountState.ACTIVE)
    stored('two', AccountState.ORPHANED)
    stored('three', AccountState.REMOVED)

    expect:
    table.states() == [one: AccountState.ACTIVE, two: AccountState.ORPHANED, three: AccountState.REMOVED]
    table.find(['two', 'three', 'missing']).collectEntries { k, v -> [k, v.state()] } ==
        [two: AccountState.ORPHANED, three: AccountState.REMOVED]
    table.find([]).isEmpty()
  }

  def "more names than one statement takes are read in several"() {
    given:
    def names = (1..1_203).collect { "account-$it".toString() }
    names.each { stored(it, AccountState.ACTIVE) }

    expect:
    table.find(names).keySet() == names as Set
  }

  private void stored(String name, AccountState state) {
    table.recordState(new AgentAccount(name, new ClusterIdentity('10.9.9.9:443', '', 'v1.30.0'), state,
        Instant.now(), 'agent-x', [], null, null), 'replica-elsewhere')
  }
}
