package io.spinagent.sandbox

import groovy.json.JsonOutput
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.testkit.db.AccountsTable
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import io.spinagent.testkit.net.TcpProxy
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * The accounts REST API as an operator uses it: the released plugin bundle in a Clouddriver of the
 * line under test with its SQL cache and account storage on embedded PostgreSQL, and a real agent
 * process (the agent's runnable jar) serving a simulated cluster.
 */
@Stepwise
class AccountsApiSpec extends Specification {

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup ClouddriverProcess host
  @Shared Process agent
  /** Between the agent and the plugin's agent port: stalled, the agent answers commands late. */
  @Shared @AutoCleanup TcpProxy agentLink
  @Shared ClouddriverAccounts clouddriverAccounts
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    CatsTemplateTables.create(db)
    AccountsTable.create(db.dataSource(), true)
    clouddriverAccounts = new ClouddriverAccounts(db)
    int grpcPort = freePort()
    host = SandboxSpecSupport.startHost(dir, db, grpcPort, [
      'spinagent.accounts.grace-period': '3s',
      'spinagent.accounts.command-timeout': '2s',
      'spinagent.accounts.max-dynamic-per-agent': 3])
    agentLink = TcpProxy.start('127.0.0.1', grpcPort)
    agent = startAgent(agentLink.port())
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "an agent's account is listed, ACTIVE, and a Clouddriver account"() {
    expect:
    eventually.eventually {
      def account = getJson('/spinagent/accounts/prod')
      assert account.status == 200
      assert account.body.state == 'ACTIVE'
      assert account.body.clouddriverDefinition == true
    }
    def account = getJson('/spinagent/accounts/prod').body
    account.source == 'AGENT'
    account.cachingAgent == 'agent-1'
    account.cluster.apiServerHost == "127.0.0.1:${cluster.port()}".toString()

    and:
    def agents = getJson('/spinagent/agents').body.agents
    agents*.id == ['agent-1']
    agents[0].accounts == ['prod']
    getJson('/spinagent/agents/agent-1').body.zoneId == 'zone-a'

    and:
    def list = getJson('/spinagent/accounts?state=ACTIVE').body
    list.accounts*.name == ['prod']
    list.total == 1

    and: "Clouddriver's definition never polls and reaches the cluster through the tunnel"
    def definition = clouddriverAccounts.getByName('prod')
    definition.cacheThreads == 0
    definition.kubeconfigContents.contains('/clusters/prod')
  }

  def "bad requests get a 4xx that names the problem, and leave nothing behind"() {
    when:
    def responses = [
      malformed: send('POST', '/spinagent/accounts', '{"name": "x",'),
      noName: send('POST', '/spinagent/accounts', '{"agentId": "agent-1", "serviceAccount": true}'),
      badName: send('POST', '/spinagent/accounts', '{"name": "Bad Name", "agentId": "agent-1", "serviceAccount": true}'),
      unknownField: send('POST', '/spinagent/accounts', '{"name": "x", "agentId": "agent-1", "kubeconfig": "y"}'),
      badKubeconfig: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'x', agentId: 'agent-1', kubeconfigContents: 'clusters: [}'])),
      noContext: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'x', agentId: 'agent-1', kubeconfigContents: kubeconfigText(), context: 'nope'])),
      unknownAgent: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'x', agentId: 'nobody', kubeconfigContents: kubeconfigText()])),
      unknownZone: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'x', zoneId: 'nowhere', kubeconfigContents: kubeconfigText()])),
      taken: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'prod', agentId: 'agent-1', kubeconfigContents: kubeconfigText()])),
      unknownAccount: send('GET', '/spinagent/accounts/nope', null),
      unknownAgentGet: send('GET', '/spinagent/agents/nobody', null),
      badState: send('PUT', '/spinagent/accounts/prod', '{"state": "SLEEPING"}'),
      badFilter: send('GET', '/spinagent/accounts?state=SLEEPING', null),
      deleteConfigured: send('DELETE', '/spinagent/accounts/prod', null),
      migrateMissing: send('POST', '/spinagent/accounts/migrate', '{"accounts": ["ghost"], "agentId": "agent-1"}'),
      nullCreate: send('POST', '/spinagent/accounts', 'null'),
      nullUpdate: send('PUT', '/spinagent/accounts/prod', 'null'),
      nullMigrate: send('POST', '/spinagent/accounts/migrate', 'null'),
      emptyCreate: send('POST', '/spinagent/accounts', ''),
      deeplyNested: send('PUT', '/spinagent/accounts/prod', '{"a":' * 20_000 + '1' + '}' * 20_000),
      duplicateKey: send('POST', '/spinagent/accounts', '{"name": "x", "name": "y", "agentId": "agent-1"}'),
      secretReference: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'x', agentId: 'agent-1', kubeconfigContents: 'encryptedFile:k8s!n:kubeconfig!k:config'])),
      plainText: send('POST', '/spinagent/accounts', '{"name": "x", "agentId": "agent-1"}', 'text/plain'),
      oversized: send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: 'x', agentId: 'agent-1', serviceAccount: true, namespaces: ['ns'] * 60_000])),
    ]

    then:
    responses.collectEntries { k, r -> [k, r.status] } == [
      malformed: 400, noName: 400, badName: 400, unknownField: 400, badKubeconfig: 400, noContext: 400,
      unknownAgent: 404, unknownZone: 404, taken: 409, unknownAccount: 404, unknownAgentGet: 404,
      badState: 400, badFilter: 400, deleteConfigured: 409, migrateMissing: 400,
      nullCreate: 400, nullUpdate: 400, nullMigrate: 400, emptyCreate: 400, oversized: 413,
      deeplyNested: 400, duplicateKey: 400, secretReference: 400, plainText: 415]
    responses.malformed.body.message.contains('malformed JSON')
    responses.noName.body.message == 'name: required'
    responses.badName.body.message.startsWith('name:')
    responses.unknownField.body.message.startsWith('kubeconfig: unknown field')
    responses.badKubeconfig.body.message.startsWith('kubeconfigContents: not valid YAML')
    responses.noContext.body.message == "kubeconfigContents: no context named 'nope'"
    responses.unknownAgent.body.message.contains("no agent 'nobody' is connected")
    responses.unknownZone.body.message.contains("zone 'nowhere'")
    responses.taken.body.message.contains("'prod' already exists")
    responses.badState.body.message.startsWith('state:')
    responses.deleteConfigured.body.message.contains('agent-1')
    responses.migrateMissing.body.results[0].error.contains("no account definition named 'ghost'")
    [responses.nullCreate, responses.nullUpdate, responses.nullMigrate]*.body*.message ==
      ['body: a JSON object is required, not null'] * 3
    responses.emptyCreate.body.message == 'body: a JSON object is required'
    responses.deeplyNested.body.message == 'body: JSON nested deeper than 64 levels, which no account needs'
    responses.duplicateKey.body.message == "body: field 'name' is given twice"
    responses.secretReference.body.message.startsWith(
      "kubeconfigContents: 'encryptedFile:k8s!n:kubeconfig!k:config' is a secret reference, which SpinAgent does not resolve")
    responses.oversized.body.message ==
      'body: more than 262144 bytes is over the limit of 262144 bytes (spinagent.accounts.max-request-body)'

    and: 'nothing was created'
    getJson('/spinagent/accounts').body.accounts*.name == ['prod']
    clouddriverAccounts.listByType('kubernetes')*.name == ['prod']
  }

  def "INACTIVE removes the Clouddriver account, ACTIVE restores it"() {
    when:
    def off = send('PUT', '/spinagent/accounts/prod', '{"state": "INACTIVE"}')

    then:
    off.status == 200
    eventually.eventually {
      assert getJson('/spinagent/accounts/prod').body.state == 'INACTIVE'
      assert clouddriverAccounts.getByName('prod') == null
    }

    when:
    def on = send('PUT', '/spinagent/accounts/prod', '{"state": "ACTIVE"}')

    then:
    on.status == 200
    eventually.eventually {
      assert getJson('/spinagent/accounts/prod').body.state == 'ACTIVE'
      assert clouddriverAccounts.getByName('prod') != null
    }
  }

  def "a dynamic account is pushed to the agent, served, and deleted"() {
    when:
    def created = send('POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'dyn', agentId: 'agent-1', kubeconfigContents: kubeconfigText(), kinds: ['Deployment'],
                         permissions: [read: ['dev'], write: ['ops']]]))

    then:
    created.status == 201
    created.body.source == 'API'
    created.body.state in ['ACTIVATING', 'ACTIVE']
    created.body.definition.kubeconfigContents == '<redacted>'
    eventually.eventually {
      assert getJson('/spinagent/accounts/dyn').body.state == 'ACTIVE'
      def definition = clouddriverAccounts.getByName('dyn')
      assert definition?.kubeconfigContents?.contains('/clusters/dyn')
      assert definition.permissions == [READ: ['dev'], WRITE: ['ops']]
    }
    getJson('/spinagent/agents/agent-1').body.accounts.contains('dyn')

    when:
    def deleted = send('DELETE', '/spinagent/accounts/dyn', null)

    then:
    deleted.status == 204
    eventually.eventually {
      assert clouddriverAccounts.getByName('dyn') == null
      assert !getJson('/spinagent/agents/agent-1').body.accounts.contains('dyn')
    }
    getJson('/spinagent/accounts').body.accounts*.name == ['prod']
  }

  def "a Clouddriver-managed account is migrated to the agent, and its definition replaced by the tunnel one"() {
    given:
    clouddriverAccounts.create([name: 'legacy', kubeconfigContents: kubeconfigText(),
      kinds: ['Deployment'], cacheThreads: 2])

    when:
    def migrated = send('POST', '/spinagent/accounts/migrate', '{"accounts": ["legacy"], "agentId": "agent-1"}')

    then:
    migrated.status == 200
    migrated.body.results == [[name: 'legacy', migrated: true]]
    eventually.eventually {
      def account = getJson('/spinagent/accounts/legacy').body
      assert account.state == 'ACTIVE'
      assert account.source == 'MIGRATED'
      def definition = clouddriverAccounts.getByName('legacy')
      assert definition.cacheThreads == 0
      assert definition.kubeconfigContents.contains('/clusters/legacy')
    }

    cleanup:
    send('DELETE', '/spinagent/accounts/legacy', null)
    eventually.eventually { assert clouddriverAccounts.getByName('legacy') == null }
  }

  def "a create the agent answers late is 202, and ends served in the API, the database, Clouddriver and the agent"() {
    given: 'the agent cannot hear Clouddriver for a while'
    agentLink.stall()

    when:
    def created = send('POST', '/spinagent/accounts',
      JsonOutput.toJson([name: 'late', agentId: 'agent-1', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]))

    then: 'the request says the agent has not answered, and the account is stored, waiting for it'
    created.status == 202
    created.body.name == 'late'
    created.body.source == 'API'
    getJson('/spinagent/accounts/late').body.state == 'ORPHANED'

    when: 'the agent hears of it after all'
    agentLink.resume()

    then: 'it serves it, and every place agrees'
    eventually.eventually {
      def account = getJson('/spinagent/accounts/late').body
      assert account.state == 'ACTIVE'
      assert account.source == 'API'
      assert account.definition != null
      assert (clouddriverAccounts.getByName('late'))?.kubeconfigContents?.contains('/clusters/late')
      assert getJson('/spinagent/agents/agent-1').body.accounts.contains('late')
    }
  }

  def "a delete the agent never hears of is settled when the agent comes back with the account"() {
    given: 'the agent cannot hear Clouddriver'
    agentLink.stall()

    when: 'the account is deleted, and the connection then drops with the removal still in it'
    def deleted = send('DELETE', '/spinagent/accounts/late', null)
    agentLink.cut()
    agentLink.resume()

    then: 'the agent reconnects still holding the account; the plugin refuses it and has the agent remove it'
    deleted.status == 204
    eventually.eventually {
      assert getJson('/spinagent/agents').body.agents*.id == ['agent-1']
      assert !getJson('/spinagent/agents/agent-1').body.accounts.contains('late')
      assert !getJson('/spinagent/accounts').body.accounts*.name.contains('late')
      assert clouddriverAccounts.getByName('late') == null
      // the plugin's own views agree before the agent is back; only its log shows it has reconnected
      assert Files.readString(dir.resolve('agent.log')).contains("Account 'late': removed by Clouddriver")
    }
  }

  def "an agent serves at most the configured number of dynamic accounts; one more is a 429 naming the limit"() {
    when:
    def answers = (1..4).collect { n ->
      send('POST', '/spinagent/accounts',
        JsonOutput.toJson([name: "many-$n".toString(), agentId: 'agent-1', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]))
    }

    then:
    answers[0..2]*.status == [201, 201, 201]
    answers[3].status == 429
    answers[3].body.message.contains("agent 'agent-1' already serves 3 dynamic accounts")
    answers[3].body.message.contains('spinagent.accounts.max-dynamic-per-agent')
    getJson('/spinagent/accounts/many-4').status == 404

    cleanup:
    (1..3).each { send('DELETE', "/spinagent/accounts/many-$it", null) }
    eventually.eventually { assert !getJson('/spinagent/agents/agent-1').body.accounts.any { it.startsWith('many-') } }
  }

  def "the agent goes: its account is ORPHANED, then removed with its Clouddriver account"() {
    when:
    agent.destroy()
    assert agent.waitFor(20, TimeUnit.SECONDS)

    then:
    eventually.eventually {
      assert getJson('/spinagent/agents').body.agents.isEmpty()
      assert getJson('/spinagent/accounts/prod').body.state in ['ORPHANED', 'REMOVED']
    }
    eventually.eventually {
      assert getJson('/spinagent/accounts').body.accounts.isEmpty()
      assert clouddriverAccounts.getByName('prod') == null
    }
  }

  private Process startAgent(int grpcPort) {
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve('cluster.yaml'))
    SandboxSpecSupport.startZoneAgent(dir, grpcPort, "[{name: prod, kubeconfigFile: '$kubeconfig', kinds: [Deployment]}]")
  }

  private String kubeconfigText() {
    SandboxSpecSupport.kubeconfigText(cluster, dir)
  }

  private Map getJson(String path) {
    send('GET', path, null)
  }

  private Map send(String method, String path, String body, String contentType = 'application/json') {
    SandboxSpecSupport.send(host, method, path, body, contentType)
  }

  private static int freePort() {
    SandboxSpecSupport.freePort()
  }
}
