package io.spinagent.plugin.store

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.plugin.accounts.AccountSource
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.AccountTable
import io.spinagent.plugin.accounts.AgentAccount
import io.spinagent.plugin.accounts.ClusterIdentity
import io.spinagent.plugin.accounts.DynamicAccountSpec
import io.spinagent.plugin.ha.AccountOwner
import io.spinagent.plugin.ha.AccountOwnerTable
import io.spinagent.plugin.ha.ConnectedAgentTable
import io.spinagent.plugin.ha.ConnectedAgentTable.Connected
import io.spinagent.plugin.tunnel.SqlTunnelAuthority
import io.spinagent.plugin.tunnel.SqlTunnelTokens
import io.spinagent.plugin.tunnel.TunnelAuthority
import io.spinagent.plugin.tunnel.TunnelTokens
import io.spinagent.testkit.db.EmbeddedDatabase
import java.nio.file.Path
import java.time.Clock
import java.time.Instant
import java.util.concurrent.Callable
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.Shared
import spock.lang.Specification

/**
 * The tables Clouddriver replicas share, against a real database (subclasses choose the engine):
 * replicas racing to create the same row all end up with the one that won, and ownership follows
 * the latest connection.
 */
abstract class SharedReplicaTablesSpecification extends Specification {

  static final int REPLICAS = 8

  @Shared EmbeddedDatabase db
  @Shared DSLContext jooq

  abstract EmbeddedDatabase startDatabase()

  def setupSpec() {
    db = startDatabase()
    jooq = DSL.using(db.dataSource(), SQLDialect.valueOf(db.dialect()))
    SpinAgentSchema.migrate(jooq)
  }

  def cleanupSpec() {
    db?.close()
  }

  def "a replica starting on tables already up to date migrates nothing and logs no Liquibase error"() {
    given: 'the changesets the first replica applied'
    def applied = jooq.fetchCount(DSL.table(SpinAgentSchema.CHANGELOG_TABLE))

    when: 'another replica (a process of its own: Liquibase keeps state per process) starts'
    def replica = new ProcessBuilder(
        Path.of(System.getProperty('java.home'), 'bin', 'java').toString(),
        '-cp', System.getProperty('java.class.path'),
        SchemaMigrationMain.name, db.jdbcUrl(), db.user(), db.password())
        .redirectErrorStream(true)
        .start()
    def output = replica.inputStream.text
    def exited = replica.waitFor(2, TimeUnit.MINUTES)

    then:
    exited
    replica.exitValue() == 0
    output.contains('SpinAgent tables up to date')
    !output.contains('SEVERE')
    !output.contains('Exception')
    jooq.fetchCount(DSL.table(SpinAgentSchema.CHANGELOG_TABLE)) == applied
    applied > 0
  }

  def "replicas starting together all use the one tunnel CA that was stored first"() {
    when:
    def authorities = race { TunnelAuthority.shared(new SqlTunnelAuthority(jooq, Clock.systemUTC())) }

    then:
    authorities*.certificatePem().unique().size() == 1
    authorities*.privateKeyPem().unique().size() == 1
    jooq.fetchCount(DSL.table('spinagent_tunnel_authority')) == 1

    and: 'a replica starting later reads the same one'
    TunnelAuthority.shared(new SqlTunnelAuthority(jooq, Clock.systemUTC())).certificatePem() == authorities[0].certificatePem()
  }

  def "replicas issuing an account's token at once all get the same token, and every replica accepts it"() {
    when:
    def tokens = race { new TunnelTokens(new SqlTunnelTokens(jooq, Clock.systemUTC())).issue('racing') }
    def anotherReplica = new TunnelTokens(new SqlTunnelTokens(jooq, Clock.systemUTC()))

    then:
    tokens.unique().size() == 1
    anotherReplica.accepts('racing', tokens[0])
    !anotherReplica.accepts('racing', tokens[0] + 'x')
    !anotherReplica.accepts('racing', null)
    anotherReplica.exists('racing')
    !anotherReplica.exists('never-issued')
    !anotherReplica.accepts('never-issued', tokens[0])
    anotherReplica.issue('other') != tokens[0]
  }

  def "replicas claiming an account at once leave exactly one owner row"() {
    given:
    def table = new AccountOwnerTable(jooq)
    def now = Instant.now()
    def next = new java.util.concurrent.atomic.AtomicInteger()

    when:
    race {
      def replica = "replica-${next.incrementAndGet()}".toString()
      table.acquire(new AccountOwner('contested', replica, "http://$replica:9093", 'agent-c', now, now))
    }

    then:
    jooq.fetchCount(DSL.table('spinagent_account_owners'), DSL.field('account').eq('contested')) == 1
    table.find('contested').get().replicaId().startsWith('replica-')

    cleanup:
    (1..REPLICAS).each { table.releaseAll("replica-$it".toString()) }
  }

  def "each replica records the agents connected to it; others find an agent or zone there until its rows stop being renewed"() {
    given:
    def table = new ConnectedAgentTable(jooq)
    def now = Instant.now()

    when: 'replica-1 holds agent-a (zone-a) and agent-b (no zone); replica-2 holds agent-c (zone-a), renewed a second later'
    table.record('replica-1', 'http://one:9093', [new Connected('agent-a', 'zone-a'), new Connected('agent-b', null)], now)
    table.record('replica-2', 'http://two:9093', [new Connected('agent-c', 'zone-a')], now.plusSeconds(1))

    then: 'found from any other replica, by agent id or by zone (the most recently renewed first)'
    table.findElsewhere('agent-a', null, 'replica-3', now.minusSeconds(10)).get().replicaId() == 'replica-1'
    table.findElsewhere('agent-a', null, 'replica-3', now.minusSeconds(10)).get().forwardUrl() == 'http://one:9093'
    table.findElsewhere('agent-b', null, 'replica-2', now.minusSeconds(10)).get().zoneId() == null
    table.findElsewhere(null, 'zone-a', 'replica-3', now.minusSeconds(10)).get().agentId() == 'agent-c'
    table.findElsewhere(null, 'zone-a', 'replica-2', now.minusSeconds(10)).get().agentId() == 'agent-a'

    and: 'never the replica asking, nor an unknown agent or zone'
    table.findElsewhere('agent-a', null, 'replica-1', now.minusSeconds(10)).isEmpty()
    table.findElsewhere('agent-x', null, 'replica-3', now.minusSeconds(10)).isEmpty()
    table.findElsewhere(null, 'zone-x', 'replica-3', now.minusSeconds(10)).isEmpty()

    when: 'agent-b left replica-1; agent-a moved to replica-2 too; rows older than the owner timeout are ignored'
    table.record('replica-1', 'http://one:9093', [new Connected('agent-a', 'zone-a')], now.plusSeconds(2))
    table.record('replica-2', 'http://two:9093', [new Connected('agent-c', 'zone-a'), new Connected('agent-a', 'zone-a')], now.plusSeconds(3))

    then:
    table.findElsewhere('agent-b', null, 'replica-3', now.minusSeconds(10)).isEmpty()
    table.findElsewhere('agent-a', null, 'replica-3', now.minusSeconds(10)).get().replicaId() == 'replica-2'
    table.findElsewhere('agent-a', null, 'replica-2', now.plusSeconds(3)).isEmpty()

    when: 'replica-2 stops'
    table.releaseAll('replica-2')

    then:
    table.findElsewhere('agent-a', null, 'replica-3', now.minusSeconds(10)).get().replicaId() == 'replica-1'
    table.findElsewhere(null, 'zone-a', 'replica-3', now.minusSeconds(10)).get().agentId() == 'agent-a'

    when: 'agent-a reconnected to replica-1 naming another zone'
    table.record('replica-1', 'http://one:9093', [new Connected('agent-a', 'zone-b')], now.plusSeconds(4))

    then:
    table.findElsewhere(null, 'zone-b', 'replica-3', now.minusSeconds(10)).get().agentId() == 'agent-a'
    table.findElsewhere(null, 'zone-a', 'replica-3', now.minusSeconds(10)).isEmpty()

    when: 'replica-1 records that no agent is connected any more'
    table.record('replica-1', 'http://one:9093', [], now.plusSeconds(5))

    then:
    jooq.fetchCount(DSL.table('spinagent_connected_agents')) == 0
  }

  def "the latest connection owns an account, and the earlier owner's heartbeat cannot take it back"() {
    given:
    def table = new AccountOwnerTable(jooq)
    def now = Instant.now()

    when: 'the agent connects to replica-1, then to replica-2'
    table.acquire(new AccountOwner('moving', 'replica-1', 'http://one:9093', 'agent-m', now, now))
    table.acquire(new AccountOwner('moving', 'replica-2', 'http://two:9093', 'agent-m', now.plusSeconds(1), now.plusSeconds(1)))
    def stillOwnedByOne = table.heartbeat('replica-1', now.plusSeconds(2))

    then:
    !stillOwnedByOne.contains('moving')
    table.find('moving').get().replicaId() == 'replica-2'
    table.heartbeat('replica-2', now.plusSeconds(2)) == ['moving'] as Set

    and: 'while replica-2 renews nobody takes it over; once it is silent, a replica still serving it may'
    !table.takeOverIfStale(new AccountOwner('moving', 'replica-1', 'http://one:9093', 'agent-m', now, now),
        now.plusSeconds(2))
    table.takeOverIfStale(new AccountOwner('moving', 'replica-1', 'http://one:9093', 'agent-m', now, now),
        now.plusSeconds(30))
    table.find('moving').get().replicaId() == 'replica-1'

    and: "a release by a replica that no longer owns it changes nothing"
    !table.release('moving', 'replica-2')
    table.find('moving').isPresent()

    when: 'the owner lets go'
    def released = table.release('moving', 'replica-1')

    then:
    released
    table.find('moving').isEmpty()

    and: 'an account nobody owns may be taken over'
    table.takeOverIfStale(new AccountOwner('moving', 'replica-3', 'http://three:9093', 'agent-m', now, now), now)
    table.find('moving').get().replicaId() == 'replica-3'

    cleanup:
    ['replica-1', 'replica-2', 'replica-3'].each { table.releaseAll(it) }
  }

  def "replicas binding an account at once all read back the one principal that won; deleting the binding frees the name"() {
    given:
    def table = new AccountTable(jooq, Clock.systemUTC())
    def next = new java.util.concurrent.atomic.AtomicInteger()

    when:
    def bound = race { table.bind(['contested-binding'], "token:team-${next.incrementAndGet()}".toString()) }

    then:
    bound*.get('contested-binding').unique().size() == 1
    table.find('contested-binding').get().boundPrincipal() == bound[0]['contested-binding']
    table.bind(['contested-binding'], 'token:late') == ['contested-binding': bound[0]['contested-binding']]

    when: 'the account is deleted, and another principal claims the name'
    table.unbind('contested-binding')

    then:
    table.find('contested-binding').get().boundPrincipal() == null
    table.bind(['contested-binding'], 'x509:CN=next') == ['contested-binding': 'x509:CN=next']

    cleanup:
    table.delete('contested-binding')
  }

  def "an account recorded without a principal binds to the next agent to claim it, alongside new names"() {
    given: 'an account recorded before bindings were'
    def table = new AccountTable(jooq, Clock.systemUTC())
    table.recordState(new AgentAccount('recorded', new ClusterIdentity('10.0.0.1:6443', '', 'v1.29.4'), AccountState.ORPHANED,
        Instant.now(), null, [], null, null), 'replica-1')

    expect:
    table.find('recorded').get().boundPrincipal() == null

    when:
    def bound = table.bind(['recorded', 'new-one'], 'x509:CN=agent-1,O=Acme')

    then: 'both are bound; the recorded one keeps its state, the new one waits REMOVED for its first state'
    bound == ['recorded': 'x509:CN=agent-1,O=Acme', 'new-one': 'x509:CN=agent-1,O=Acme']
    table.find('recorded').get().state() == AccountState.ORPHANED
    table.find('new-one').get().state() == AccountState.REMOVED
    table.find('new-one').get().boundPrincipal() == 'x509:CN=agent-1,O=Acme'

    cleanup:
    ['recorded', 'new-one'].each { table.delete(it) }
  }

  def "a replica's late record of an account does not overwrite a later one, nor bring back a deleted dynamic account"() {
    given: 'replica-1 served prod and dyn; their agents moved to replica-2'
    def table = new AccountTable(jooq, Clock.systemUTC())
    def t0 = Instant.now().minusSeconds(60)
    table.recordState(account('prod', AccountState.ACTIVE, t0), 'replica-1')
    table.insertDynamic(new ObjectMapper().convertValue(
        [name: 'dyn', agentId: 'agent-1', kubeconfigContents: 'apiVersion: v1'], DynamicAccountSpec), AccountSource.API)
    table.recordState(account('prod', AccountState.ACTIVE, t0.plusSeconds(20)), 'replica-2')

    when: "replica-1's record that its agent left arrives last"
    table.recordState(account('prod', AccountState.ORPHANED, t0.plusSeconds(10)), 'replica-1')

    then: "replica-2's later record stands"
    table.find('prod').get().state() == AccountState.ACTIVE
    table.find('prod').get().ownerReplica() == 'replica-2'

    when: 'dyn is deleted through the API, and a replica that served it records a state after that'
    table.markRemoved('dyn')
    table.recordState(account('dyn', AccountState.ACTIVE, Instant.now().plusSeconds(1)), 'replica-2')

    then: 'it stays deleted'
    table.find('dyn').get().state() == AccountState.REMOVED

    when: 'a later record of the agent account'
    table.recordState(account('prod', AccountState.ORPHANED, t0.plusSeconds(30)), 'replica-2')

    then:
    table.find('prod').get().state() == AccountState.ORPHANED

    cleanup:
    ['prod', 'dyn'].each { table.delete(it) }
  }

  private static AgentAccount account(String name, AccountState state, Instant since) {
    new AgentAccount(name, new ClusterIdentity('10.0.0.1:6443', '', 'v1.29.4'), state, since, null, [], null, null)
  }

  /** Runs {@code work} on {@link #REPLICAS} threads released at the same moment; their results. */
  private static <T> List<T> race(Closure<T> work) {
    def pool = Executors.newFixedThreadPool(REPLICAS)
    try {
      def start = new CountDownLatch(1)
      def futures = (1..REPLICAS).collect {
        pool.submit({ start.await(); work.call() } as Callable<T>)
      }
      start.countDown()
      futures*.get()
    } finally {
      pool.shutdownNow()
    }
  }
}
