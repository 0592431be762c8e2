package io.spinagent.sandbox

import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.testkit.db.AccountsTable
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import io.spinagent.testkit.net.TcpProxy
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * Two Clouddriver replicas of the line under test, each with the released bundle, on one PostgreSQL
 * database, and a real agent connected to replica B only. Every accounts command sent to replica A
 * is carried out by replica B, which holds the agent's stream, and the caller gets B's answer.
 */
@Stepwise
class ReplicaForwardingSpec extends Specification {

  static final String SECRET = 'replicas-only-7d2a'

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup ClouddriverProcess replicaA
  @Shared @AutoCleanup ClouddriverProcess replicaB
  @Shared Process agent
  @Shared int grpcPortB
  /** Between the agent and replica B: stalled, the agent answers commands late. */
  @Shared @AutoCleanup TcpProxy agentLink
  @Shared ClouddriverAccounts clouddriverAccounts
  @Shared DSLContext jooq
  @Shared HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    CatsTemplateTables.create(db)
    AccountsTable.create(db.dataSource(), true)
    jooq = DSL.using(db.dataSource(), SQLDialect.POSTGRES)
    clouddriverAccounts = new ClouddriverAccounts(db)
    replicaA = startReplica(freePort(), 'replica-a')
    grpcPortB = freePort()
    replicaB = startReplica(grpcPortB, 'replica-b')
    agentLink = TcpProxy.start('127.0.0.1', grpcPortB)
    agent = startAgent(agentLink.port())
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "the agent streams to replica B, which owns its account; replica A has no agent"() {
    expect:
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/accounts/prod', null).body?.state == 'ACTIVE'
      assert ownerOf('prod') == replicaId(replicaB)
    }
    send(replicaA, 'GET', '/spinagent/agents', null).body.agents.isEmpty()
    send(replicaB, 'GET', '/spinagent/agents', null).body.agents*.id == ['agent-1']
  }

  def "a dynamic account created through replica A is created by replica B and served by its agent"() {
    when:
    def created = send(replicaA, 'POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'dyn', agentId: 'agent-1', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]))

    then: "B's answer, as B gives it"
    created.status == 201
    created.headers.firstValue('Location').orElse(null) == '/spinagent/accounts/dyn'
    created.body.name == 'dyn'
    created.body.source == 'API'
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/agents/agent-1', null).body.accounts.contains('dyn')
      assert send(replicaA, 'GET', '/spinagent/accounts/dyn', null).body.state == 'ACTIVE'
      assert ownerOf('dyn') == replicaId(replicaB)
      assert (clouddriverAccounts.getByName('dyn'))?.kubeconfigContents?.contains('/clusters/dyn')
    }
  }

  def "B's refusals reach the caller of A with their status and message"() {
    when:
    def taken = send(replicaA, 'POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'dyn', agentId: 'agent-1', serviceAccount: true]))
    def configured = send(replicaA, 'DELETE', '/spinagent/accounts/prod', null)
    def badState = send(replicaA, 'PUT', '/spinagent/accounts/prod', '{"state": "SLEEPING"}')

    then:
    taken.status == 409
    taken.body.message.contains("'dyn' already exists")
    configured.status == 409
    configured.body.message.contains("in the configuration of agent(s) [agent-1]")
    badState.status == 400
    badState.body.message.startsWith('state:')
  }

  def "switching an account off through replica A is done by B"() {
    when:
    def off = send(replicaA, 'PUT', '/spinagent/accounts/dyn', '{"state": "INACTIVE"}')

    then:
    off.status == 200
    off.body.state == 'INACTIVE'
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/accounts/dyn', null).body.state == 'INACTIVE'
      assert clouddriverAccounts.getByName('dyn') == null
    }

    when: 'switched on again at B, where its agent is (an INACTIVE account has no stream to find it by)'
    def on = send(replicaB, 'PUT', '/spinagent/accounts/dyn', '{"state": "ACTIVE"}')

    then:
    on.status == 200
    eventually.eventually {
      assert send(replicaA, 'GET', '/spinagent/accounts/dyn', null).body.state == 'ACTIVE'
      assert ownerOf('dyn') == replicaId(replicaB)
    }
  }

  def "Armory's PATCH through replica A switches the account off at B"() {
    when:
    def patched = send(replicaA, 'PATCH', '/armory/accounts', '[{"name": "dyn", "state": "INACTIVE"}]')

    then:
    patched.status == 200
    patched.body.accounts*.name == ['dyn']
    patched.body.accounts[0].status == 200
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/accounts/dyn', null).body.state == 'INACTIVE'
    }

    cleanup:
    send(replicaB, 'PUT', '/spinagent/accounts/dyn', '{"state": "ACTIVE"}')
    eventually.eventually { assert ownerOf('dyn') == replicaId(replicaB) }
  }

  def "a create the agent answers late is 202 through replica A too, and ends served"() {
    given:
    agentLink.stall()

    when:
    def created = send(replicaA, 'POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'late', agentId: 'agent-1', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]))

    then:
    created.status == 202
    created.body.name == 'late'

    when:
    agentLink.resume()

    then:
    eventually.eventually {
      assert send(replicaA, 'GET', '/spinagent/accounts/late', null).body.state == 'ACTIVE'
      assert send(replicaB, 'GET', '/spinagent/agents/agent-1', null).body.accounts.contains('late')
    }
  }

  def "a Clouddriver account migrated through replica A is handed to the agent by B"() {
    given:
    clouddriverAccounts.create([name: 'legacy', kubeconfigContents: kubeconfigText(),
      kinds: ['Deployment'], cacheThreads: 2])

    when:
    def migrated = send(replicaA, 'POST', '/spinagent/accounts/migrate', '{"accounts": ["legacy"], "agentId": "agent-1"}')

    then:
    migrated.status == 200
    migrated.body.results == [[name: 'legacy', migrated: true]]
    eventually.eventually {
      assert send(replicaA, 'GET', '/spinagent/accounts/legacy', null).body.state == 'ACTIVE'
      assert (clouddriverAccounts.getByName('legacy')).cacheThreads == 0
    }
  }

  def "accounts deleted through replica A are removed from the agent by B"() {
    when:
    def deleted = send(replicaA, 'DELETE', '/spinagent/accounts/dyn', null)
    def armoryDeleted = send(replicaA, 'DELETE', '/armory/accounts', '[{"name": "late"}, {"name": "legacy"}]')

    then:
    deleted.status == 204
    armoryDeleted.status == 200
    armoryDeleted.body.accounts*.status == [204, 204]
    eventually.eventually {
      def served = send(replicaB, 'GET', '/spinagent/agents/agent-1', null).body.accounts
      assert served == ['prod']
      assert clouddriverAccounts.getByName('dyn') == null
      assert clouddriverAccounts.getByName('late') == null
    }
  }

  def "an agent that serves no account yet is known to replica A too: creates for it or its zone are carried out by B"() {
    given: 'agent-2 (zone-b), without accounts, connected to replica B'
    def lonely = startAgentWithoutAccounts()
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/agents/agent-2', null).status == 200
      assert jooq.fetchValue("select replica_id from spinagent_connected_agents where agent_id = 'agent-2'") == replicaId(replicaB)
    }

    when: 'created through replica A for that agent'
    def byAgent = send(replicaA, 'POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'lonely', agentId: 'agent-2', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]))

    then:
    byAgent.status == 201
    byAgent.body.agentId == 'agent-2'
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/agents/agent-2', null).body.accounts == ['lonely']
      assert send(replicaA, 'GET', '/spinagent/accounts/lonely', null).body.state == 'ACTIVE'
    }

    when: 'deleted again, the agent serves nothing; created through A for its zone, with Armory\'s API'
    def deleted = send(replicaA, 'DELETE', '/spinagent/accounts/lonely', null)
    eventually.eventually { assert send(replicaB, 'GET', '/spinagent/agents/agent-2', null).body.accounts == [] }
    def byZone = send(replicaA, 'POST', '/armory/accounts/dynamic',
      JsonOutput.toJson([[name: 'lonely-zone', zoneId: 'zone-b', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]]))

    then:
    deleted.status == 204
    byZone.status == 200
    byZone.body.accounts*.status == [201]
    eventually.eventually {
      assert send(replicaB, 'GET', '/spinagent/agents/agent-2', null).body.accounts == ['lonely-zone']
    }

    when: 'the agent leaves: its row goes, and replica A has nowhere to send a create for it'
    send(replicaA, 'DELETE', '/spinagent/accounts/lonely-zone', null)
    lonely.destroy()
    lonely.waitFor(20, TimeUnit.SECONDS)
    eventually.eventually {
      assert jooq.fetchCount(DSL.table('spinagent_connected_agents'), DSL.field('agent_id').eq('agent-2')) == 0
    }
    def nobody = send(replicaA, 'POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'lonely-2', agentId: 'agent-2', serviceAccount: true]))

    then:
    nobody.status == 404
    nobody.body.message.startsWith("agentId: no agent 'agent-2' is connected")

    cleanup:
    lonely?.destroy()
  }

  def "a forwarded command is run by the replica it reaches and never forwarded again; without the secret it is refused"() {
    given: "replica B's own forwarding endpoint, as recorded for the account it owns"
    String forwardUrl = jooq.fetchValue("select forward_url from spinagent_account_owners where account = 'prod'") as String
    String replicaAUrl = forwardUrlOf(replicaA)
    def command = JsonOutput.toJson([kind: 'CHANGE', name: 'prod', body: [state: 'INACTIVE']])

    when: 'replica A is handed a command for the account B owns, as if another replica forwarded it'
    def atA = post("$replicaAUrl/commands", command, SECRET)

    then: 'A runs it itself: it cannot reach the agent, so it refuses, naming B, instead of sending it on'
    atA.statusCode() == 409
    new JsonSlurper().parseText(atA.body()).message.contains(replicaId(replicaB))

    when: 'no secret'
    def noSecret = post("$forwardUrl/commands", command, null)

    then:
    noSecret.statusCode() == 401
    send(replicaB, 'GET', '/spinagent/accounts/prod', null).body.state == 'ACTIVE'
  }

  /** A second agent, agent-2 of zone-b, connected straight to replica B, serving no account of its own. */
  private Process startAgentWithoutAccounts() {
    Path agentDir = Files.createDirectories(dir.resolve('agent-2'))
    def config = Files.writeString(agentDir.resolve('spinagent.yaml'), """\
      agent: {id: agent-2, zoneId: zone-b}
      clouddriver: {grpc: '127.0.0.1:$grpcPortB', insecure: true}
      server: {port: ${freePort()}}
      kubernetes: {accounts: []}
      """.stripIndent())
    SandboxSpecSupport.startAgentJar(config, agentDir.resolve('agent.log'))
  }

  private ClouddriverProcess startReplica(int grpcPort, String name) {
    SandboxSpecSupport.startHost(dir, db, grpcPort, [
      'spinagent.ha.shared-secret': SECRET,
      'spinagent.ha.address': '127.0.0.1',
      'spinagent.ha.advertise-address': '127.0.0.1',
      'spinagent.ha.port': 0,
      'spinagent.ha.heartbeat-interval': '1s',
      'spinagent.ha.owner-timeout': '10s',
      'spinagent.accounts.grace-period': '30s',
      'spinagent.accounts.command-timeout': '2s'], name)
  }

  private String replicaId(ClouddriverProcess replica) {
    send(replica, 'GET', '/spinagent/info', null).body.replicaId
  }

  private String forwardUrlOf(ClouddriverProcess replica) {
    send(replica, 'GET', '/spinagent/info', null).body.forwardUrl
  }

  private String ownerOf(String account) {
    jooq.fetchValue("select replica_id from spinagent_account_owners where account = '$account'") as String
  }

  private HttpResponse<String> post(String url, String body, String secret) {
    def request = HttpRequest.newBuilder(URI.create(url)).header('Content-Type', 'application/json')
      .POST(HttpRequest.BodyPublishers.ofString(body))
    if (secret != null) {
      request.header('X-SpinAgent-Forwarding-Secret', secret)
    }
    http.send(request.build(), HttpResponse.BodyHandlers.ofString())
  }

  private Process startAgent(int grpcPort) {
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve('cluster.yaml'))
    SandboxSpecSupport.startZoneAgent(dir, grpcPort, "[{name: prod, kubeconfigFile: '$kubeconfig', kinds: [Deployment]}]")
  }

  private String kubeconfigText() {
    SandboxSpecSupport.kubeconfigText(cluster, dir)
  }

  private Map send(ClouddriverProcess replica, String method, String path, String body) {
    SandboxSpecSupport.send(replica, method, path, body)
  }


  private static int freePort() {
    SandboxSpecSupport.freePort()
  }
}
