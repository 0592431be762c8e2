package io.spinagent.plugin.accounts

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.COMMAND
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.DECISIONS
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.store.SpinAgentSchema
import io.spinagent.protocol.v1.AccountInfo
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
 * A dynamic account deleted through another replica while its agent was moving here: the delete
 * ran there before this replica recorded the agent, and the claim here read the row before the
 * delete marked it. The orphan sweep's pass deletes it here too. A real session and a real
 * PostgreSQL table, as two replicas share it.
 */
class DeletedElsewhereSpec extends Specification {

  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared DSLContext jooq
  @Shared AccountTable table

  @AutoCleanup
  ChannelFixture fixture = ChannelFixture.inProcess()

  DynamicAccountReconciler reconciler

  PollingConditions eventually = new PollingConditions(timeout: 10)

  def setupSpec() {
    jooq = DSL.using(db.dataSource(), SQLDialect.POSTGRES)
    SpinAgentSchema.migrate(jooq)
    table = new AccountTable(jooq, Clock.systemUTC())
  }

  def cleanup() {
    jooq.deleteFrom(DSL.table('spinagent_accounts')).execute()
  }

  def setup() {
    ['dyn', 'kept'].each { table.insertDynamic(spec(it), AccountSource.API) }
    // The registry the reconciler needs is built by start(): the listener hands over to it.
    fixture.welcomeListener = new AgentWelcomeListener() {
      void welcomed(AgentLink agent) { reconciler.welcomed(agent) }

      Optional<String> refusal(AgentLink agent, AccountInfo account) { reconciler.refusal(agent, account) }
    }
    fixture.start()
    reconciler = new DynamicAccountReconciler(fixture.accounts, fixture.sessions, table)
  }

  def "a dynamic account another replica deleted is deleted here and withdrawn from its agent; the others stay"() {
    given: 'the agent serves both dynamic accounts here'
    def agent = fixture.agent()
    def welcome = agent.hello('agent-1', [dynamic(account('dyn')), dynamic(account('kept', 'https://10.0.0.2:6443'))]).next(WELCOME).welcome
    assert welcome.accountsList*.accepted == [true, true]

    when: 'another replica marks dyn deleted, and the sweep runs here'
    table.markRemoved('dyn')
    reconciler.swept()

    then: 'dyn is gone here, its agent is told to stop streaming it and to remove it'
    fixture.accounts.find('dyn').isEmpty()
    !agent.next(DECISIONS).decisions.getAccounts(0).accepted
    agent.next(COMMAND).command.removeAccount.name == 'dyn'

    and: 'the other account is served as before, and the session goes on'
    fixture.accounts.find('kept').get().cachingAgentId() == 'agent-1'
    !agent.hasEnded()
  }

  def "an account whose state changed since the sweep read it is left alone"() {
    given:
    fixture.agent().hello('agent-1', [dynamic(account('dyn'))]).next(WELCOME)
    def seen = fixture.accounts.find('dyn').get()

    when: 'the account moved on (switched off here) before the sweep acts on what it read'
    fixture.accounts.deactivate('dyn')
    def deleted = fixture.accounts.deletedElsewhere('dyn', seen.stateSince(), 'deleted elsewhere')

    then:
    !deleted
    fixture.accounts.find('dyn').isPresent()
  }

  def "an orphaned dynamic account whose row another replica deleted is forgotten, not kept until the grace period ends"() {
    given: 'the agent served both accounts here, then left: they wait ORPHANED for it'
    def agent = fixture.agent()
    agent.hello('agent-1', [dynamic(account('dyn')), dynamic(account('kept', 'https://10.0.0.2:6443'))]).next(WELCOME)
    agent.complete()
    eventually.eventually {
      assert ['dyn', 'kept'].every { fixture.accounts.find(it).get().state() == AccountState.ORPHANED }
    }

    when: "another replica deletes dyn's row (as a create there whose push failed does), and the sweep runs here"
    table.delete('dyn')
    reconciler.swept()

    then: 'dyn is forgotten here; kept, whose row is still there, waits for its agent'
    fixture.accounts.find('dyn').isEmpty()
    fixture.accounts.find('kept').get().state() == AccountState.ORPHANED
  }

  def "a dynamic account switched off here after its agent left, whose row another replica deleted, is forgotten"() {
    given: 'the agent served both accounts here, then left; both were switched off here'
    def agent = fixture.agent()
    agent.hello('agent-1', [dynamic(account('dyn')), dynamic(account('kept', 'https://10.0.0.2:6443'))]).next(WELCOME)
    agent.complete()
    eventually.eventually {
      assert ['dyn', 'kept'].every { fixture.accounts.find(it).get().state() == AccountState.ORPHANED }
    }
    ['dyn', 'kept'].each {
      table.setInactive(it, true)
      fixture.accounts.deactivate(it)
    }

    when: "another replica deletes dyn's row (the delete it ran as the switch ran here), and the sweep runs here"
    table.delete('dyn')
    reconciler.swept()

    then: 'dyn is forgotten here, switch and all; kept stays switched off'
    fixture.accounts.find('dyn').isEmpty()
    !fixture.accounts.isInactive('dyn')
    fixture.accounts.find('kept').get().state() == AccountState.INACTIVE
  }

  def "an account restored at start-up whose row another replica deleted is forgotten; one whose row is there waits"() {
    given: 'this replica restarted and restored both accounts from their rows, ORPHANED until their agents return'
    fixture.accounts.restore([] as Set, ['dyn', 'kept'].collect { name ->
      new AgentAccount(name, new ClusterIdentity('https://10.0.0.1:6443', 'ab' * 32, 'v1.29.4'), AccountState.ORPHANED,
        Instant.now(), null, [], null, null)
    }, [:])

    when: "another replica deletes dyn's row, and the sweep runs here"
    table.delete('dyn')
    reconciler.swept()

    then:
    fixture.accounts.find('dyn').isEmpty()
    fixture.accounts.find('kept').get().state() == AccountState.ORPHANED
  }

  def "an orphaned account from an agent's configuration has no row to go by and waits for its agent"() {
    given:
    def agent = fixture.agent()
    agent.hello('agent-1', [account('own', 'https://10.0.0.3:6443')]).next(WELCOME)
    agent.complete()
    eventually.eventually { assert fixture.accounts.find('own').get().state() == AccountState.ORPHANED }

    when: 'its row is not written yet (rows of agents\' own accounts are written after the claim)'
    table.delete('own')
    reconciler.swept()

    then:
    fixture.accounts.find('own').get().state() == AccountState.ORPHANED
  }

  /** As an agent claims an account Clouddriver sent it. */
  private static AccountInfo dynamic(AccountInfo account) {
    account.toBuilder().setDynamic(true).build()
  }

  private static DynamicAccountSpec spec(String name) {
    new ObjectMapper().convertValue([name: name, agentId: 'agent-1', kubeconfigContents: 'apiVersion: v1'],
        DynamicAccountSpec)
  }
}
