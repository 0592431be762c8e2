package io.spinagent.sandbox

import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.testkit.db.AccountsTable
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * One truth about an account whatever callers do at once: two Clouddriver replicas of the line under
 * test on one PostgreSQL database, the /credentials interceptor on, and a real agent connected to
 * replica B with one account of its own configuration ({@code prod}). Callers go to both replicas;
 * the REST answer, {@code spinagent_accounts}, Clouddriver's definition and what the agent serves
 * must agree once they are done, and no session is ended by their churn.
 */
@Stepwise
class AccountChurnSpec extends Specification {

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup ClouddriverProcess replicaA
  @Shared @AutoCleanup ClouddriverProcess replicaB
  @Shared Process agent
  @Shared ClouddriverAccounts clouddriverAccounts
  @Shared String sessionId
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    CatsTemplateTables.create(db)
    AccountsTable.create(db.dataSource(), true)
    clouddriverAccounts = new ClouddriverAccounts(db)
    replicaA = startReplica(SandboxSpecSupport.freePort(), 'replica-a')
    int grpcPortB = SandboxSpecSupport.freePort()
    replicaB = startReplica(grpcPortB, 'replica-b')
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve('cluster.yaml'))
    agent = SandboxSpecSupport.startZoneAgent(dir, grpcPortB,
      "[{name: prod, kubeconfigFile: '$kubeconfig', kinds: [Deployment]}]")
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "prod is served by the agent on replica B, with SpinAgent's tunnel definition in Clouddriver"() {
    expect:
    eventually.eventually {
      assert send(replicaA, 'GET', '/spinagent/accounts/prod').body?.state == 'ACTIVE'
      assert tunnelDefinition('prod')
      assert agentAccount('prod').state == 'READY'
    }

    when:
    sessionId = session()

    then:
    sessionId != null
  }

  def "/credentials cannot change or delete an account of an agent's configuration, on either replica"() {
    given:
    def before = clouddriverAccounts.getByName('prod')
    [replicaA, replicaB].each { clearReached(it) }

    when:
    def answers = [replicaA, replicaB].collectMany { replica ->
      [send(replica, 'PUT', '/credentials',
         JsonOutput.toJson([type: 'kubernetes', name: 'prod', namespaces: ['x']])),
       send(replica, 'PUT', '/credentials/prod',
         JsonOutput.toJson([type: 'kubernetes', name: 'prod', namespaces: ['x']])),
       send(replica, 'DELETE', '/credentials/prod')]
    }

    then: "each is refused, naming the agent's configuration, before Clouddriver's own handling"
    answers*.status == [409] * 6
    answers.every { it.body.message.contains("is in the configuration of agent(s) [agent-1]") }
    answers.every { it.body.message.contains('PUT /spinagent/accounts/prod {"state": "INACTIVE"}') }
    [replicaA, replicaB].every { reached(it) == [] }

    and: 'the definition is the one SpinAgent wrote'
    clouddriverAccounts.getByName('prod') == before
    send(replicaA, 'GET', '/spinagent/accounts/prod').body.state == 'ACTIVE'
  }

  def "a definition deleted behind SpinAgent's back is written again, and the log says so"() {
    when: "an operator deletes the row from Clouddriver's accounts table"
    clouddriverAccounts.delete('prod')

    then:
    eventually.eventually {
      assert tunnelDefinition('prod')
    }
    logOf('replica-b').contains("Account 'prod' (agent 'agent-1'): its Clouddriver account definition is" +
      " SpinAgent's, but it was deleted outside SpinAgent")
  }

  def "a definition changed behind SpinAgent's back is written again"() {
    given:
    def written = clouddriverAccounts.getByName('prod')

    when: 'someone stores a definition without the tunnel kubeconfig'
    clouddriverAccounts.save([name: 'prod', namespaces: ['x'], kubeconfigContents: 'broken'])

    then:
    eventually.eventually {
      assert clouddriverAccounts.getByName('prod') == written
    }
    logOf('replica-b') =~ /it was changed \([^)]*kubeconfigContents[^)]*namespaces/
  }

  def "concurrent ACTIVE/INACTIVE flips through both replicas settle to the last one"() {
    given:
    def pool = Executors.newFixedThreadPool(10)

    when: 'twenty callers flip prod at once, half through each replica, then one switches it on'
    def flips = (0..<20).collect { i ->
      pool.submit({
        send(i % 2 ? replicaA : replicaB, 'PUT', '/spinagent/accounts/prod',
          JsonOutput.toJson([state: i % 3 ? 'INACTIVE' : 'ACTIVE'])).status
      } as Callable<Integer>)
    }*.get(120, TimeUnit.SECONDS)
    def last = send(replicaA, 'PUT', '/spinagent/accounts/prod', '{"state": "ACTIVE"}')

    then: 'every flip was answered, none failed'
    flips.every { it == 200 }
    last.status == 200

    and: 'the API, the table, Clouddriver and the agent agree: prod is served'
    eventually.eventually {
      assert send(replicaA, 'GET', '/spinagent/accounts/prod').body.state == 'ACTIVE'
      assert send(replicaB, 'GET', '/spinagent/accounts/prod').body.state == 'ACTIVE'
      assert tunnelDefinition('prod')
      assert agentAccount('prod').state == 'READY'
    }

    and: 'the agent kept its session'
    session() == sessionId

    cleanup:
    pool.shutdownNow()
  }

  def "deleting many dynamic accounts at once leaves the agent's session and its other accounts alone"() {
    given: 'twelve dynamic accounts served by the agent'
    def names = (1..12).collect { "mass-$it".toString() }
    names.each { name ->
      def created = send(replicaA, 'POST', '/spinagent/accounts', JsonOutput.toJson([name: name, agentId: 'agent-1',
        kubeconfigContents: SandboxSpecSupport.kubeconfigText(cluster, dir), kinds: ['Deployment']]))
      assert created.status in [201, 202]
      assert created.body.state in ['ACTIVATING', 'ACTIVE']
    }
    eventually.eventually {
      names.each { assert send(replicaB, 'GET', "/spinagent/accounts/$it").body?.state == 'ACTIVE' }
    }
    def pool = Executors.newFixedThreadPool(6)

    when: 'they are deleted six at a time, through both replicas'
    def deletes = names.withIndex().collect { name, i ->
      pool.submit({
        send(i % 2 ? replicaA : replicaB, 'DELETE', "/spinagent/accounts/$name").status
      } as Callable<Integer>)
    }*.get(120, TimeUnit.SECONDS)

    then:
    deletes.every { it == 204 }
    eventually.eventually {
      names.each { name ->
        // kept for the record as REMOVED, out of every listing
        assert send(replicaA, 'GET', "/spinagent/accounts/$name").body.state == 'REMOVED'
        assert clouddriverAccounts.getByName(name) == null
      }
      assert send(replicaA, 'GET', '/spinagent/accounts').body.accounts*.name == ['prod']
      assert send(replicaB, 'GET', '/spinagent/agents/agent-1').body.accounts == ['prod']
    }

    and: 'the agent kept its session, and prod is served as before'
    session() == sessionId
    send(replicaA, 'GET', '/spinagent/accounts/prod').body.state == 'ACTIVE'
    agentAccount('prod').state == 'READY'

    cleanup:
    pool.shutdownNow()
  }

  /** Whether Clouddriver's definition of {@code name} is SpinAgent's: through the tunnel, never polled. */
  private boolean tunnelDefinition(String name) {
    def definition = clouddriverAccounts.getByName(name)
    definition?.cacheThreads == 0 && definition.kubeconfigContents?.contains("/clusters/$name")
  }

  /** The id of the agent's session with replica B. */
  private String session() {
    send(replicaB, 'GET', '/spinagent/agents/agent-1').body?.sessionId
  }

  /** The account as the agent's own admin endpoint shows it. */
  private Map agentAccount(String name) {
    def port = (Files.readString(dir.resolve('spinagent.yaml')) =~ /server: \{port: (\d+)\}/)[0][1]
    def response = SandboxSpecSupport.HTTP.send(
      HttpRequest.newBuilder(URI.create("http://localhost:$port/accounts/$name")).build(),
      HttpResponse.BodyHandlers.ofString())
    response.statusCode() == 200 ? new JsonSlurper().parseText(response.body()) as Map : [:]
  }

  private String logOf(String replica) {
    Files.readString(dir.resolve("${replica}.log"))
  }

  private ClouddriverProcess startReplica(int grpcPort, String name) {
    SandboxSpecSupport.startHost(dir, db, grpcPort, [
      'spinagent.ha.shared-secret': 'replicas-only-5c1e',
      'spinagent.ha.address': '127.0.0.1',
      'spinagent.ha.advertise-address': '127.0.0.1',
      'spinagent.ha.port': 0,
      'spinagent.ha.heartbeat-interval': '1s',
      'spinagent.ha.owner-timeout': '10s',
      'spinagent.accounts.definition-check-interval': '1s',
      'spinagent.accounts.credentials-interceptor.enabled': true,
      'spinagent.accounts.credentials-interceptor.zone-id': 'zone-a'], name)
  }

  private Map send(ClouddriverProcess replica, String method, String path, String body = null) {
    SandboxSpecSupport.send(replica, method, path, body)
  }

  /** The methods of the /credentials requests that reached Clouddriver's own handling on {@code replica}. */
  private List<String> reached(ClouddriverProcess replica) {
    send(replica, 'GET', '/standin/credentials-requests').body as List<String>
  }

  private void clearReached(ClouddriverProcess replica) {
    assert send(replica, 'DELETE', '/standin/credentials-requests').status == 200
  }
}
