package io.spinagent.sandbox

import groovy.json.JsonOutput
import io.spinagent.sandbox.host.PluginsRoot
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository
import io.spinagent.testkit.db.AccountsTable
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import org.springframework.context.ConfigurableApplicationContext
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * Armory's /credentials interceptor (spinagent.accounts.credentials-interceptor): Kubernetes
 * accounts created through Clouddriver's Account Management API go to the zone's agent, SpinAgent's
 * accounts are deleted through it and not overwritten, and everything else reaches Clouddriver
 * untouched. The released bundle in a Clouddriver host on PostgreSQL, a real agent.
 */
@Stepwise
class CredentialsInterceptorSpec extends Specification {

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup PluginsRoot pluginsRoot = PluginsRoot.withBundle(PluginsRoot.builtBundle())
  @Shared @AutoCleanup ConfigurableApplicationContext host
  @Shared Process agent
  @Shared SqlAccountDefinitionRepository clouddriverAccounts
  @Shared CredentialsEndpoint clouddriver
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    CatsTemplateTables.create(db)
    AccountsTable.create(db.dataSource(), true)
    clouddriverAccounts = new SqlAccountDefinitionRepository(db.dataSource(), true)
    clouddriver = new CredentialsEndpoint(clouddriverAccounts, clouddriverAccounts.definitionMapper())
    int grpcPort = SandboxSpecSupport.freePort()
    host = SandboxSpecSupport.startHost(pluginsRoot, db, clouddriverAccounts, grpcPort, [
      'spinagent.accounts.credentials-interceptor.enabled': true,
      'spinagent.accounts.credentials-interceptor.zone-id': 'zone-a'],
      [credentialsController: clouddriver])
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
    clouddriver.reached == ['POST']

    and: 'served by the agent through the tunnel, its Clouddriver definition the tunnel one'
    eventually.eventually {
      def account = send('GET', '/spinagent/accounts/team-a').body
      assert account?.state == 'ACTIVE'
      assert account.source == 'MIGRATED'
      assert account.zoneId == 'zone-a'
      def definition = clouddriverAccounts.getByName('team-a') as KubernetesAccountDefinition
      assert definition.cacheThreads == 0
      assert definition.kubeconfigContents.contains('/clusters/team-a')
    }
  }

  def "other account types reach Clouddriver untouched and answer as Clouddriver does"() {
    given:
    clouddriver.reached.clear()

    when:
    def answer = send('POST', '/credentials', JsonOutput.toJson([type: 'dockerRegistry', name: 'registry']))

    then:
    clouddriver.reached == ['POST']
    answer.status == 400
    answer.body.message.startsWith('cannot read the definition')
    send('GET', '/spinagent/accounts/registry').status == 404
  }

  def "bad bodies are refused with a 400 that names the problem, before Clouddriver sees them"() {
    given:
    clouddriver.reached.clear()

    when:
    def answer = send(method, '/credentials', body)

    then:
    answer.status == 400
    answer.body.message.contains(problem)
    clouddriver.reached == []

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
    clouddriver.reached.clear()

    when: 'a name SpinAgent refuses (not a Kubernetes-style name)'
    def answer = send('POST', '/credentials', kubernetes('Team_C'))

    then:
    clouddriver.reached == ['POST']
    answer.status == 400
    answer.body.message.startsWith("account 'Team_C' was not created: it could not be migrated to zone 'zone-a'")
    clouddrivers('Team_C') == null
    send('GET', '/spinagent/accounts/Team_C').status == 404
  }

  def "PUT /credentials of SpinAgent's account is refused; of Clouddriver's own account it passes"() {
    given:
    clouddriver.reached.clear()
    clouddriverAccounts.create(new KubernetesAccountDefinition(name: 'own', kubeconfigContents: kubeconfigText(),
      cacheThreads: 2))

    when:
    def refused = send('PUT', '/credentials', kubernetes('team-a'))
    def passed = send('PUT', '/credentials', kubernetes('own', 3))

    then:
    refused.status == 409
    refused.body.message.contains('PUT /spinagent/accounts/team-a')
    (clouddrivers('team-a') as KubernetesAccountDefinition).cacheThreads == 0
    passed.status == 200
    clouddriver.reached == ['PUT']
    (clouddrivers('own') as KubernetesAccountDefinition).cacheThreads == 3
    send('GET', '/spinagent/accounts/own').status == 404
  }

  def "DELETE /credentials/{name} of SpinAgent's account deletes it from SpinAgent and its agent"() {
    given:
    clouddriver.reached.clear()

    when:
    def deleted = send('DELETE', '/credentials/team-a')

    then:
    deleted.status == 200
    clouddriver.reached == ['DELETE']
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

  private Process startAgent(int grpcPort) {
    SandboxSpecSupport.startZoneAgent(dir, grpcPort, '[]')
  }

  private String kubeconfigText() {
    SandboxSpecSupport.kubeconfigText(cluster, dir)
  }

  private Map send(String method, String path, String body = null) {
    SandboxSpecSupport.send(host, method, path, body)
  }
}
