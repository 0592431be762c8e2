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
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * Armory's /credentials interceptor (spinagent.accounts.credentials-interceptor): Kubernetes
 * accounts created through Clouddriver's Account Management API go to the zone's agent, SpinAgent's
 * accounts are changed (at their agents, Clouddriver keeping the tunnel definition) and deleted
 * through it, and everything else reaches Clouddriver untouched. The released bundle in a
 * Clouddriver of the line under test on PostgreSQL, whose /credentials stands in for Clouddriver's
 * and records what reached it; a real agent.
 */
@Stepwise
class CredentialsInterceptorSpec extends Specification {

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
    int grpcPort = SandboxSpecSupport.freePort()
    host = SandboxSpecSupport.startHost(dir, db, grpcPort, [
      'spinagent.accounts.credentials-interceptor.enabled': true,
      'spinagent.accounts.credentials-interceptor.zone-id': 'zone-a'])
    agent = startAgent(grpcPort)
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "POST /credentials with a kubernetes account: Clouddriver stores it, then it is migrated to the zone's agent"() {
    given: 'the zone has its agent'
    eventually.eventually { assert send('GET', '/spinagent/agents/agent-1').status == 200 }

    when:
    def created = send('POST', '/credentials', kubernetes('team-a'))

    then: "Clouddriver's answer"
    created.status == 200
    created.body.name == 'team-a'
    reached() == ['POST']

    and: 'served by the agent through the tunnel, its Clouddriver definition the tunnel one'
    eventually.eventually {
      def account = send('GET', '/spinagent/accounts/team-a').body
      assert account?.state == 'ACTIVE'
      assert account.source == 'MIGRATED'
      assert account.zoneId == 'zone-a'
      def definition = clouddriverAccounts.getByName('team-a')
      assert definition.cacheThreads == 0
      assert definition.kubeconfigContents.contains('/clusters/team-a')
    }
  }

  def "other account types reach Clouddriver untouched and answer as Clouddriver does"() {
    given:
    clearReached()

    when:
    def answer = send('POST', '/credentials', JsonOutput.toJson([type: 'dockerRegistry', name: 'registry']))

    then:
    reached() == ['POST']
    answer.status == 400
    answer.body.message.startsWith('cannot read the definition')
    send('GET', '/spinagent/accounts/registry').status == 404
  }

  def "bad bodies are refused with a 400 that names the problem, before Clouddriver sees them"() {
    given:
    clearReached()

    when:
    def answer = send(method, '/credentials', body)

    then:
    answer.status == 400
    answer.body.message.contains(problem)
    reached() == []

    where:
    method | body                                                  || problem
    'POST' | '{"type": "kubernetes", "name": '                        || 'body: not a JSON account definition'
    'POST' | '["team-b"]'                                            || 'body: a JSON object'
    'POST' | '{"@type": "kubernetes", "name": "team-b"}'             || '"type": "kubernetes"'
    'POST' | '{"type": "kubernetes", "kubeconfigContents": "x"}'     || 'name: a kubernetes account needs a name'
    'PUT'  | '{"type": "kubernetes", "name": "  "}'                  || 'name: a kubernetes account needs a name'
  }

  def "an account that cannot be migrated is not created: Clouddriver's definition is removed again"() {
    given:
    clearReached()

    when: 'a name SpinAgent refuses (not a Kubernetes-style name)'
    def answer = send('POST', '/credentials', kubernetes('Team_C'))

    then:
    reached() == ['POST']
    answer.status == 400
    answer.body.message.startsWith("account 'Team_C' was not created: it could not be migrated to zone 'zone-a'")
    clouddrivers('Team_C') == null
    send('GET', '/spinagent/accounts/Team_C').status == 404
  }

  def "PUT /credentials of SpinAgent's account changes it at its agent; Clouddriver keeps the tunnel definition"() {
    given:
    clearReached()

    when: 'the definition as a script sends it: a new kind list, permissions, and Clouddriver polling settings'
    def changed = send('PUT', '/credentials', JsonOutput.toJson([type: 'kubernetes', name: 'team-a',
      kubeconfigContents: kubeconfigText(), kinds: ['Deployment', 'Service'],
      permissions: [READ: ['dev'], WRITE: ['ops']], cacheThreads: 4, checkPermissionsOnStartup: true]))

    then: "Clouddriver's checks ran (its PUT, with the definition it stores), then the account changed"
    changed.status == 200
    reached() == ['PUT']
    changed.body.name == 'team-a'
    changed.body.zoneId == 'zone-a'
    changed.body.definition.kinds == ['Deployment', 'Service']
    changed.body.definition.permissions == [read: ['dev'], write: ['ops']]
    changed.body.definition.kubeconfigContents == '<redacted>'

    and: 'the agent serves the new definition'
    eventually.eventually {
      assert agentAccount('team-a').watchedKinds as Set == ['Deployment.apps', 'Service'] as Set
    }

    and: "Clouddriver's definition is still the tunnel one, with what the agent now reports"
    eventually.eventually {
      def definition = clouddrivers('team-a')
      assert definition.kubeconfigContents.contains('/clusters/team-a')
      assert definition.cacheThreads == 0
      assert definition.permissions == [READ: ['dev'], WRITE: ['ops']]
      assert send('GET', '/spinagent/accounts/team-a').body.state == 'ACTIVE'
    }
  }

  def "a definition read from Clouddriver and sent back (its tunnel kubeconfig included) keeps the account's credentials"() {
    given:
    clearReached()
    def stored = clouddrivers('team-a')
    def definition = new LinkedHashMap(stored)
    definition.kinds = ['Deployment']

    when:
    def changed = send('PUT', '/credentials', JsonOutput.toJson(definition))

    then:
    changed.status == 200
    reached() == ['PUT']
    eventually.eventually {
      def account = send('GET', '/spinagent/accounts/team-a').body
      assert account.definition.kinds == ['Deployment']
      assert account.state == 'ACTIVE'
      assert agentAccount('team-a').watchedKinds == ['Deployment.apps']
      assert (clouddrivers('team-a')).kubeconfigContents.contains('/clusters/team-a')
    }
  }

  def "a PUT SpinAgent cannot honour is refused, naming the field, and changes nothing"() {
    given:
    clearReached()
    def before = clouddrivers('team-a')

    when:
    def answer = send('PUT', path, JsonOutput.toJson([type: 'kubernetes', name: 'team-a'] + fields))

    then:
    answer.status == status
    answer.body.message.contains(problem)
    reached() == clouddriverSaw
    clouddrivers('team-a') == before
    send('GET', '/spinagent/accounts/team-a').body.definition.kinds == ['Deployment']

    where:
    path                     | fields                                                        || status | clouddriverSaw | problem
    '/credentials'           | [kubectlExecutable: '/opt/kubectl-1.20', kinds: ['Pod']]      || 400    | []      | 'kubectlExecutable: not kept for an account SpinAgent serves'
    '/credentials'           | [permissions: [READ: ['dev'], EXECUTE: ['ci']]]               || 400    | []      | 'permissions.EXECUTE: SpinAgent accounts have READ and WRITE roles only'
    '/credentials'           | [kubeconfigFile: '/nowhere/kubeconfig.yaml']                  || 400    | []      | "kubeconfigFile: cannot read '/nowhere/kubeconfig.yaml'"
    '/credentials'           | [kubeconfigFile: '/dev/zero']                                 || 400    | []      | "kubeconfigFile: cannot read '/dev/zero' on this Clouddriver replica (not a regular file)"
    '/credentials/team-b'    | [kinds: ['Pod']]                                              || 400    | []      | "name: 'team-a' differs from the account in the path ('team-b')"
    '/credentials'           | [kubeconfigContents: 'apiVersion: v1\nkind: Config\n', kinds: ['Pod']] || 400 | ['PUT'] | "account 'team-a' was not changed:"
  }

  def "PUT /credentials of Clouddriver's own account passes untouched"() {
    given:
    clearReached()
    clouddriverAccounts.create([name: 'own', kubeconfigContents: kubeconfigText(),
      cacheThreads: 2])

    when:
    def passed = send('PUT', '/credentials', kubernetes('own', 3))

    then:
    passed.status == 200
    reached() == ['PUT']
    (clouddrivers('own')).cacheThreads == 3
    send('GET', '/spinagent/accounts/own').status == 404
  }

  def "PUT /credentials of an account nobody has creates it, and it is migrated as a POST's would be"() {
    given:
    clearReached()

    when: "Clouddriver's PUT /credentials saves, whether or not the account exists"
    def created = send('PUT', '/credentials', kubernetes('put-new'))

    then: 'Clouddriver stored it, and the zone\'s agent serves it through the tunnel'
    created.status == 200
    reached() == ['PUT']
    eventually.eventually {
      def account = send('GET', '/spinagent/accounts/put-new').body
      assert account?.state == 'ACTIVE'
      assert account.source == 'MIGRATED'
      assert clouddriverAccounts.getByName('put-new').kubeconfigContents.contains('/clusters/put-new')
    }

    cleanup:
    send('DELETE', '/credentials/put-new', null)
  }

  def "DELETE /credentials/{name} of SpinAgent's account deletes it from SpinAgent and its agent"() {
    given:
    clearReached()

    when:
    def deleted = send('DELETE', '/credentials/team-a')

    then:
    deleted.status == 200
    reached() == ['DELETE']
    eventually.eventually {
      assert !send('GET', '/spinagent/accounts').body.accounts*.name.contains('team-a')
      assert !send('GET', '/spinagent/agents/agent-1').body.accounts.contains('team-a')
      assert clouddrivers('team-a') == null
    }
  }

  private Object clouddrivers(String name) {
    clouddriverAccounts.getByName(name)
  }

  private String kubernetes(String name, int cacheThreads = 1) {
    JsonOutput.toJson([type: 'kubernetes', name: name, kubeconfigContents: kubeconfigText(),
                       kinds: ['Deployment'], cacheThreads: cacheThreads])
  }

  /** The account as the agent's own admin endpoint shows it. */
  private Map agentAccount(String name) {
    def port = (Files.readString(dir.resolve('spinagent.yaml')) =~ /server: \{port: (\d+)\}/)[0][1]
    def response = SandboxSpecSupport.HTTP.send(
      HttpRequest.newBuilder(URI.create("http://localhost:$port/accounts/$name")).build(),
      HttpResponse.BodyHandlers.ofString())
    assert response.statusCode() == 200
    new JsonSlurper().parseText(response.body()) as Map
  }

  private Process startAgent(int grpcPort) {
    SandboxSpecSupport.startZoneAgent(dir, grpcPort, '[]')
  }

  private String kubeconfigText() {
    SandboxSpecSupport.kubeconfigText(cluster, dir)
  }

  private Map send(String method, String path, String body = null) {
    SandboxSpecSupport.send(host, method, path, body)
  }

  /** The methods of the /credentials requests that reached Clouddriver's own handling. */
  private List<String> reached() {
    send('GET', '/standin/credentials-requests').body as List<String>
  }

  private void clearReached() {
    assert send('DELETE', '/standin/credentials-requests').status == 200
  }
}
