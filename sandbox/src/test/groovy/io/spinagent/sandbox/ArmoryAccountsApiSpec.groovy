package io.spinagent.sandbox

import groovy.json.JsonOutput
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.testkit.db.AccountsTable
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * Armory Scale Agent's dynamic accounts API, called as Armory's documentation calls it (paths,
 * array bodies, its field names), against the released bundle in a Clouddriver host on PostgreSQL
 * with a real agent serving a simulated cluster.
 */
@Stepwise
class ArmoryAccountsApiSpec extends Specification {

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup ClouddriverProcess host
  @Shared Process agent
  @Shared ClouddriverAccounts clouddriverAccounts
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    CatsTemplateTables.create(db)
    AccountsTable.create(db.dataSource(), true)
    clouddriverAccounts = new ClouddriverAccounts(db)
    int grpcPort = freePort()
    host = SandboxSpecSupport.startHost(dir, db, grpcPort, [
      'spinagent.accounts.grace-period': '30s',
      'spinagent.accounts.command-timeout': '5s',
      'spinagent.accounts.max-accounts-per-request': 3])
    agent = startAgent(grpcPort)
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "GET /armory/accounts lists accounts in Armory's page shape, pages from 1"() {
    expect:
    eventually.eventually { assert send('GET', '/spinagent/accounts/prod', null).body?.state == 'ACTIVE' }

    when:
    def page = send('GET', '/armory/accounts', null)
    def second = send('GET', '/armory/accounts?page=2&limit=1', null)

    then:
    page.status == 200
    page.body.page == 1
    page.body.limit == 100
    page.body.total == 1
    page.body.items*.name == ['prod']
    page.body.items[0].type == 'kubernetes'
    page.body.items[0].source == 'static-agent-config'
    page.body.items[0].agents == [[agentId: 'agent-1', caching: true]]
    second.status == 200
    second.body.items == []
    second.body.page == 2
    second.body.total == 1
  }

  def "GET /armory/accounts/{name} and /agents/kubernetes/accounts/{name} answer in Armory's shapes"() {
    when:
    def account = send('GET', '/armory/accounts/prod', null)
    def agentAccount = send('GET', '/agents/kubernetes/accounts/prod', null)
    def namespaces = send('GET', '/agents/kubernetes/accounts/prod/namespaces', null)
    def unknown = send('GET', '/agents/kubernetes/accounts/nope', null)

    then:
    account.status == 200
    account.body.name == 'prod'
    account.body.state == 'ACTIVE'
    account.body.lastAssignmentMsg == 'served by agent agent-1'
    agentAccount.status == 200
    agentAccount.body.name == 'prod'
    agentAccount.body.kubeHost == "127.0.0.1:${cluster.port()}".toString()
    agentAccount.body.status == 'ACTIVE'
    agentAccount.body.dynamic == false
    agentAccount.body.permissions == [READ: ['dev'], WRITE: ['ops']]
    agentAccount.body.lastUpdated instanceof Number
    namespaces.status == 200
    namespaces.body == ['default']
    unknown.status == 404
    unknown.body.message == "no account named 'nope'"
  }

  def "POST /armory/accounts/dynamic creates every account of the array, with Armory's permissions form"() {
    when:
    def created = send('POST', '/armory/accounts/dynamic', JsonOutput.toJson([
      [name: 'dyn-a', zoneId: 'zone-a', kubeconfigContents: kubeconfigText(), kinds: ['Deployment'],
       permissions: [[READ: ['dev']], [WRITE: ['ops']]]],
      [name: 'dyn-b', zoneId: 'zone-a', kubeconfigContents: kubeconfigText(), namespaces: ['default']]]))

    then: 'both created; Armory answers an array with one result per account'
    created.status == 200
    created.body.accounts*.name == ['dyn-a', 'dyn-b']
    created.body.accounts*.status == [201, 201]
    created.body.accounts[0].account.definition.permissions == [read: ['dev'], write: ['ops']]
    eventually.eventually {
      assert send('GET', '/armory/accounts/dyn-a', null).body.state == 'ACTIVE'
      assert send('GET', '/armory/accounts/dyn-b', null).body.state == 'ACTIVE'
      assert (clouddriverAccounts.getByName('dyn-a'))?.permissions == [READ: ['dev'], WRITE: ['ops']]
    }
    send('GET', '/armory/accounts/dyn-a', null).body.source == 'clouddriver'
    send('GET', '/agents/kubernetes/accounts/dyn-b', null).body.dynamic == true
    send('GET', '/agents/kubernetes/accounts/dyn-b/namespaces', null).body == ['default']
  }

  def "PATCH /armory/accounts switches accounts off and on; ACTIVE on a served account changes nothing"() {
    when:
    def off = send('PATCH', '/armory/accounts', '[{"name": "dyn-a", "state": "INACTIVE"}, {"name": "prod", "state": "ACTIVE"}]')

    then:
    off.status == 200
    off.body.accounts*.status == [200, 200]
    eventually.eventually {
      assert send('GET', '/armory/accounts/dyn-a', null).body.state == 'INACTIVE'
      assert clouddriverAccounts.getByName('dyn-a') == null
    }
    send('GET', '/armory/accounts/prod', null).body.state == 'ACTIVE'

    when:
    def on = send('PATCH', '/armory/accounts', '{"name": "dyn-a", "state": "ACTIVE", "zoneId": "zone-a"}')

    then:
    on.status == 200
    eventually.eventually { assert send('GET', '/armory/accounts/dyn-a', null).body.state == 'ACTIVE' }
  }

  def "PUT /armory/accounts/dynamic gives accounts new definitions"() {
    when:
    def updated = send('PUT', '/armory/accounts/dynamic', JsonOutput.toJson([
      [name: 'dyn-b', zoneId: 'zone-a', kubeconfigContents: kubeconfigText(), namespaces: ['default'],
       kinds: ['Deployment', 'Service']]]))

    then:
    updated.status == 200
    updated.body.accounts[0].status == 200
    updated.body.accounts[0].account.definition.kinds == ['Deployment', 'Service']
    send('GET', '/armory/accounts/dyn-b', null).body.config.kinds == ['Deployment', 'Service']
  }

  def "a request that succeeds for some accounts and fails for others is 207 with each account's status"() {
    when:
    def mixed = send('POST', '/armory/accounts/dynamic', JsonOutput.toJson([
      [name: 'dyn-c', zoneId: 'zone-a', kubeconfigContents: kubeconfigText()],
      [name: 'dyn-a', zoneId: 'zone-a', serviceAccount: true],
      [name: 'dyn-d', zoneId: 'nowhere', serviceAccount: true]]))

    then:
    mixed.status == 207
    mixed.body.accounts*.status == [201, 409, 404]
    mixed.body.accounts[1].error.contains("'dyn-a' already exists")
    mixed.body.accounts[2].error.contains("zone 'nowhere'")

    when: 'every account fails the same way'
    def allTaken = send('POST', '/armory/accounts/dynamic', '[{"name": "dyn-a", "zoneId": "zone-a", "serviceAccount": true}]')

    then:
    allTaken.status == 409
  }

  def "bad bodies are refused as a whole with a 400 naming the element and field, and touch nothing"() {
    when:
    def responses = [
      notArray: send('POST', '/armory/accounts/dynamic', '"dyn-x"'),
      empty: send('POST', '/armory/accounts/dynamic', '[]'),
      tooMany: send('POST', '/armory/accounts/dynamic', JsonOutput.toJson((1..4).collect { [name: "x-$it", zoneId: 'zone-a', serviceAccount: true] })),
      duplicate: send('POST', '/armory/accounts/dynamic', '[{"name": "x-1", "zoneId": "zone-a", "serviceAccount": true}, {"name": "x-1", "zoneId": "zone-a", "serviceAccount": true}]'),
      noName: send('POST', '/armory/accounts/dynamic', '[{"name": "x-1", "zoneId": "zone-a", "serviceAccount": true}, {"zoneId": "zone-a"}]'),
      unknownField: send('POST', '/armory/accounts/dynamic', '[{"name": "x-1", "zoneId": "zone-a", "serviceAccount": true, "kubeconfig": "y"}]'),
      badPermissions: send('POST', '/armory/accounts/dynamic', '[{"name": "x-1", "zoneId": "zone-a", "serviceAccount": true, "permissions": [{"EXECUTE": ["a"]}]}]'),
      badState: send('PATCH', '/armory/accounts', '[{"name": "dyn-a", "state": "SLEEPING"}]'),
      otherZone: send('PATCH', '/armory/accounts', '[{"name": "dyn-a", "state": "ACTIVE", "zoneId": "zone-b"}]'),
      migrateNoZone: send('POST', '/armory/accounts', '[{"name": "legacy"}]'),
      migrateKubeconfig: send('POST', '/armory/accounts', '[{"name": "legacy", "zoneId": "zone-a", "kubeconfigFile": 7}]'),
    ]

    then:
    responses.collectEntries { k, r -> [k, r.status] } == [notArray: 400, empty: 400, tooMany: 400, duplicate: 400,
      noName: 400, unknownField: 400, badPermissions: 400, badState: 400, otherZone: 400, migrateNoZone: 400, migrateKubeconfig: 400]
    responses.notArray.body.message == 'body: a JSON array of accounts is required'
    responses.empty.body.message == 'body: the array names no account'
    responses.tooMany.body.message.startsWith('body: 4 accounts is over the limit of 3 per request (spinagent.accounts.max-accounts-per-request)')
    responses.duplicate.body.message == "[1].name: 'x-1' is named more than once in the request"
    responses.noName.body.message == '[1].name: required'
    responses.unknownField.body.message.startsWith('[0].kubeconfig: unknown field')
    responses.badPermissions.body.message == '[0].permissions.EXECUTE: unknown permission (READ or WRITE)'
    responses.badState.body.message.startsWith("[0].state: 'SLEEPING' is not one of")
    responses.otherZone.body.message.startsWith("[0].zoneId: 'zone-b' is not the zone of account 'dyn-a'")
    responses.migrateNoZone.body.message.startsWith('[0].zoneId: required')
    responses.migrateKubeconfig.body.message.startsWith("[0].kubeconfigFile: a path on the agent's machine")

    and: 'nothing was created'
    send('GET', '/armory/accounts', null).body.items*.name == ['dyn-a', 'dyn-b', 'dyn-c', 'prod']
  }

  def "POST /armory/accounts migrates Clouddriver's accounts to the zone's agents"() {
    given:
    clouddriverAccounts.create([name: 'legacy', kubeconfigContents: kubeconfigText(),
      kinds: ['Deployment'], cacheThreads: 2])

    when:
    def migrated = send('POST', '/armory/accounts', '[{"name": "legacy", "zoneId": "zone-a"}, {"name": "ghost", "zoneId": "zone-a"}]')

    then:
    migrated.status == 207
    migrated.body.accounts*.status == [200, 400]
    migrated.body.accounts[1].error.contains("no account definition named 'ghost'")
    eventually.eventually {
      def account = send('GET', '/armory/accounts/legacy', null).body
      assert account.state == 'ACTIVE'
      assert account.source == 'clouddriver'
      assert (clouddriverAccounts.getByName('legacy')).cacheThreads == 0
    }
  }

  def "POST /armory/accounts with kubeconfigFile: the agent reads that kubeconfig on its machine instead of Clouddriver's"() {
    given: "a Clouddriver account whose kubeconfig does not work from where the agent runs"
    def unreachable = kubeconfigText().replaceAll(/server: \S+/, 'server: https://127.0.0.1:1')
    clouddriverAccounts.create([name: 'legacy-file', kubeconfigContents: unreachable,
      kinds: ['Deployment'], permissions: [READ: ['dev']]])
    def agentsKubeconfig = dir.resolve('cluster.yaml').toString()

    when:
    def migrated = send('POST', '/armory/accounts', JsonOutput.toJson([
      [name: 'legacy-file', zoneId: 'zone-a', kubeconfigFile: agentsKubeconfig]]))

    then:
    migrated.status == 200
    migrated.body.accounts*.status == [200]
    eventually.eventually {
      def account = send('GET', '/spinagent/accounts/legacy-file', null).body
      assert account.state == 'ACTIVE'
      assert account.source == 'MIGRATED'
      assert account.definition.kubeconfigFile == agentsKubeconfig
      assert account.definition.kubeconfigContents == null
      assert account.definition.kinds == ['Deployment']
      assert account.definition.permissions.read == ['dev']
      assert (clouddriverAccounts.getByName('legacy-file')).kubeconfigContents.contains('/clusters/legacy-file')
    }
  }

  def "POST /armory/accounts with a kubeconfigFile the agent cannot read is refused, naming why; the account stays Clouddriver's"() {
    given:
    clouddriverAccounts.save([name: 'legacy-ref', kubeconfigContents: kubeconfigText()])

    when:
    def refused = send('POST', '/armory/accounts', JsonOutput.toJson([[name: 'legacy-ref', zoneId: 'zone-a', kubeconfigFile: file]]))

    then:
    refused.status == 400
    refused.body.accounts[0].error.startsWith("kubeconfigFile: '$file' $problem")
    send('GET', '/spinagent/accounts/legacy-ref', null).status == 404
    (clouddriverAccounts.getByName('legacy-ref')).kubeconfigContents == kubeconfigText()

    where:
    file                                                      || problem
    'encryptedFile:k8s!n:kubeconfig!k:config!ns:spinnaker'    || "is a secret reference, which SpinAgent's agent does not resolve"
    'kubeconfigs/team.yaml'                                   || 'is not an absolute path'
  }

  def "DELETE /armory/accounts deletes every account of the array"() {
    when:
    def deleted = send('DELETE', '/armory/accounts', '[{"name": "dyn-a"}, {"name": "dyn-b"}, "dyn-c"]')
    def legacy = send('DELETE', '/armory/accounts', '[{"name": "legacy"}, {"name": "legacy-file"}]')

    then:
    deleted.status == 200
    deleted.body.accounts*.status == [204, 204, 204]
    legacy.status == 200
    eventually.eventually {
      assert send('GET', '/armory/accounts', null).body.items*.name == ['prod']
      assert clouddriverAccounts.getByName('dyn-a') == null
      assert send('GET', '/spinagent/agents/agent-1', null).body.accounts == ['prod']
    }
  }

  private Process startAgent(int grpcPort) {
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve('cluster.yaml'))
    SandboxSpecSupport.startZoneAgent(dir, grpcPort, "[{name: prod, kubeconfigFile: '$kubeconfig', kinds: [Deployment], " +
        "namespaces: [default], permissions: {READ: [dev], WRITE: [ops]}}]")
  }

  private String kubeconfigText() {
    SandboxSpecSupport.kubeconfigText(cluster, dir)
  }

  private Map send(String method, String path, String body) {
    SandboxSpecSupport.send(host, method, path, body)
  }

  private static int freePort() {
    SandboxSpecSupport.freePort()
  }
}
