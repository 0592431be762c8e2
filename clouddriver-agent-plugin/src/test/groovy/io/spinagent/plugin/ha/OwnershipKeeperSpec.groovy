package io.spinagent.plugin.ha

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.AgentAccount
import io.spinagent.plugin.accounts.ClusterIdentity
import io.spinagent.plugin.ha.AccountOwnerTable
import io.spinagent.plugin.store.SpinAgentSchema
import io.spinagent.testkit.db.EmbeddedPostgreSql
import java.time.Clock
import java.time.Duration
import java.time.Instant
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * One replica's ownership records against a real database, driven by the account changes its
 * registry reports; other replicas appear as the rows they would write.
 */
class OwnershipKeeperSpec extends Specification {

  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared DSLContext jooq
  @Shared AccountOwnerTable table

  SimpleMeterRegistry meters = new SimpleMeterRegistry()
  HaProperties properties = new HaProperties(heartbeatInterval: Duration.ofMillis(100), ownerTimeout: Duration.ofSeconds(3))
  OwnershipKeeper keeper = new OwnershipKeeper(table, 'replica-a', { 'https://10.0.0.1:9093' }, properties, meters,
      Clock.systemUTC())
  PollingConditions eventually = new PollingConditions(timeout: 20, delay: 0.05)

  def setupSpec() {
    jooq = DSL.using(db.dataSource(), SQLDialect.POSTGRES)
    SpinAgentSchema.migrate(jooq)
    table = new AccountOwnerTable(jooq)
  }

  def setup() {
    keeper.start()
  }

  def cleanup() {
    keeper.stop()
    jooq.deleteFrom(DSL.table('spinagent_account_owners')).execute()
  }

  def "the account of an agent connecting here is claimed, released when the agent leaves, and released when the replica stops"() {
    when:
    keeper.onStateChange(account('prod', AccountState.ACTIVATING, 'agent-1'), null)
    keeper.onStateChange(account('prod', AccountState.ACTIVE, 'agent-1'), AccountState.ACTIVATING)
    keeper.onStateChange(account('staging', AccountState.ACTIVATING, 'agent-2'), null)

    then:
    eventually.eventually {
      def prod = table.find('prod').orElse(null)
      assert prod?.replicaId() == 'replica-a'
      assert prod.forwardUrl() == 'https://10.0.0.1:9093'
      assert prod.agentId() == 'agent-1'
      assert table.find('staging').isPresent()
      assert changes('acquired') == 2
      assert meters.get('spinagent.ha.accounts.owned').gauge().value() == 2
    }

    when: "prod's agent leaves"
    keeper.onStateChange(account('prod', AccountState.ORPHANED, null), AccountState.ACTIVE)

    then:
    eventually.eventually {
      assert table.find('prod').isEmpty()
      assert changes('released') == 1
    }

    when: 'the replica stops'
    keeper.stop()

    then: 'nothing is left for the others to wait out'
    table.find('staging').isEmpty()
  }

  def "an account whose agent connected to another replica later is not taken back, until that replica falls silent"() {
    given: 'the agent streams to this replica'
    keeper.onStateChange(account('prod', AccountState.ACTIVE, 'agent-1'), null)
    eventually.eventually { assert table.find('prod').map { it.replicaId() }.orElse(null) == 'replica-a' }

    when: 'it reconnects to replica B, while the session here has not noticed yet'
    def now = Instant.now()
    table.acquire(new AccountOwner('prod', 'replica-b', 'https://10.0.0.2:9093', 'agent-1', now, now))

    then: "this replica's heartbeats leave B's claim alone"
    eventually.eventually { assert changes('lost') == 1 }
    table.find('prod').get().replicaId() == 'replica-b'

    and: 'replica B died without letting go: once its heartbeat is older than the owner timeout, this replica,'
    // still serving the account, takes it over
    eventually.eventually {
      assert table.find('prod').get().replicaId() == 'replica-a'
      assert changes('taken_over') == 1
    }
  }

  private double changes(String change) {
    meters.find('spinagent.ha.ownership.changes').tag('change', change).counter()?.count() ?: 0
  }

  private static AgentAccount account(String name, AccountState state, String cachingAgent) {
    new AgentAccount(name, new ClusterIdentity('10.0.0.1:6443', '', 'v1.29.4'), state, Instant.now(), cachingAgent,
        [], null, null)
  }
}
