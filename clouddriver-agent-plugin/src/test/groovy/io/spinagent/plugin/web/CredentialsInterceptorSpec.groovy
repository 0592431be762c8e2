package io.spinagent.plugin.web

import static io.spinagent.plugin.accounts.DynamicAccountsSpec.KUBECONFIG

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.accounts.AccountSource
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.ConnectedAgents
import io.spinagent.plugin.accounts.DynamicAccountLimits
import io.spinagent.plugin.accounts.DynamicAccounts
import io.spinagent.plugin.accounts.InMemoryAccountStorage
import io.spinagent.plugin.accounts.InMemoryAccountStore
import io.spinagent.plugin.accounts.RecordingAgentLink
import io.spinagent.plugin.accounts.StreamsElsewhere
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.ha.ReplicaGroup
import io.spinagent.plugin.time.FakeClock
import java.time.Duration
import org.jooq.exception.DataAccessException
import spock.lang.Specification
import spock.lang.Tag

/**
 * Armory's {@code /credentials} interceptor called as a plain object: each request is a {@link
 * CredentialsCall}, with a Clouddriver behind it that keeps definitions in memory; the accounts it
 * migrates, changes and deletes go through the real account commands to a recorded agent of zone
 * {@code zone-a}, with the store and registry in memory.
 */
@Tag('one-class')
class CredentialsInterceptorSpec extends Specification {

  static final ObjectMapper JSON = new ObjectMapper()
  static final long MAX_BODY = 4096
  static final String TUNNEL = 'apiVersion: v1\nclusters: [{name: tunnel, cluster: {server: "https://127.0.0.1:7002/clusters/team-a"}}]'

  FakeClock time = new FakeClock()
  InMemoryAccountStore store = new InMemoryAccountStore(time.clock)
  AccountRegistry registry = new AccountRegistry(time.clock, Duration.ofMinutes(10))
  InMemoryAccountStorage storage = new InMemoryAccountStorage()
  RecordingAgentLink agent = RecordingAgentLink.accepting('agent-1', 'zone-a')
  Closure<Optional<String>> replicaServing = { name -> Optional.empty() }
  DynamicAccounts dynamicAccounts = new DynamicAccounts(registry, { [agent] } as ConnectedAgents, store,
    Optional.of(storage.definitions), new DynamicAccountLimits(Duration.ZERO, 50, 50), { name -> replicaServing(name) } as StreamsElsewhere)
  AccountCommands commands = new AccountCommands(registry, store, dynamicAccounts, CommandRouting.HERE, ReplicaGroup.ALONE, 'replica-1', MAX_BODY)
  CredentialsInterceptor interceptor = interceptor(true, 'zone-a', Optional.of(storage.definitions))

  CredentialsInterceptor interceptor(boolean enabled, String zoneId, Optional definitions) {
    def settings = new SpinAgentProperties.CredentialsInterceptor()
    settings.enabled = enabled
    settings.zoneId = zoneId
    // A definition left behind is not removed again: nothing here waits on the real clock.
    new CredentialsInterceptor(settings, commands, store, definitions, MAX_BODY, Duration.ZERO)
  }

  /** Sends a request through the interceptor; a map body is sent as JSON. */
  CredentialsCall send(String method, String path, Object body = null, String contentType = 'application/json',
                       CredentialsInterceptor through = interceptor, Integer clouddriverStatus = null) {
    byte[] bytes = body == null ? new byte[0] : body instanceof Map ? JSON.writeValueAsBytes(body) : body.toString().bytes
    def call = new CredentialsCall(storage, method, path, bytes, contentType)
    call.clouddriverStatus = clouddriverStatus
    through.handle(call)
    assert call.answeredBy != null: 'the request was not answered'
    call
  }

  static Map<String, Object> kubernetes(String name, Map<String, Object> fields = [:]) {
    [type: 'kubernetes', name: name, kubeconfigContents: KUBECONFIG] + fields
  }

  /** team-a, created through /credentials and served by the zone's agent, as the bridge leaves it: Clouddriver holds the tunnel definition. */
  void servedTeamA() {
    send('POST', '/credentials', kubernetes('team-a'))
    storage.putKubernetes(name: 'team-a', kubeconfigContents: TUNNEL, cacheThreads: 0)
    store.setClouddriverDefinition('team-a', true)
  }

  def "#method of an account while the SpinAgent database cannot be reached answers 503 naming its error; Clouddriver is not reached"() {
    given: 'the shared table goes away mid-restart'
    store.failure = new DataAccessException('SQL [select * from spinagent_accounts where name = ?]',
      new IllegalStateException('FATAL: terminating connection due to administrator command'))

    when:
    def call = send(method, path, body)

    then:
    call.status == 503
    call.answeredBy == 'spinagent'
    call.body.message == 'the SpinAgent database cannot be reached (FATAL: terminating connection due to administrator command); try again'
    call.reachedClouddriver.isEmpty()

    where:
    method   | path                  | body
    'PUT'    | '/credentials'        | kubernetes('team-a')
    'DELETE' | '/credentials/team-a' | null
  }

  def "a kubernetes account POSTed is stored by Clouddriver first, then migrated to the zone's agent, and Clouddriver's answer is the caller's"() {
    when:
    def call = send('POST', '/credentials', kubernetes('team-a', [namespaces: ['web']]))

    then:
    call.reached() == ['POST']
    call.answeredBy == 'clouddriver'
    call.status == 200
    call.body.name == 'team-a'

    and: 'the zone serves it'
    agent.commands() == ['add team-a']
    agent.sent[0].command.addAccount.account.kubeconfigContents == KUBECONFIG
    def stored = store.find('team-a').get()
    stored.source() == AccountSource.MIGRATED
    stored.zoneId() == 'zone-a'
    stored.definition().namespaces() == ['web']
  }

  def "#what reaches Clouddriver untouched, and is answered as Clouddriver answers it"() {
    given:
    storage.putKubernetes(name: 'theirs', kubeconfigContents: 'their own')

    when:
    def call = send(method, path, body, contentType, through(this))

    then:
    call.answeredBy == 'clouddriver'
    call.reached() == [method]
    call.reachedClouddriver[0].body == body
    agent.commands().isEmpty()
    store.all().isEmpty()

    where:
    what                                  | method   | path                      | body                                          | contentType        | through
    'another type of account'             | 'POST'   | '/credentials'            | [type: 'dockerRegistry', name: 'registry']    | 'application/json' | { it.interceptor }
    'a body that is not JSON'             | 'POST'   | '/credentials'            | 'name=team-a'                                 | 'text/plain'       | { it.interceptor }
    'a kubernetes account while off'      | 'POST'   | '/credentials'            | kubernetes('team-a')                          | 'application/json' | { it.interceptor(false, null, Optional.of(it.storage.definitions)) }
    'a kubernetes account without account storage' | 'POST' | '/credentials'      | kubernetes('team-a')                          | 'application/json' | { it.interceptor(true, 'zone-a', Optional.empty()) }
    'a PUT of a Clouddriver account'      | 'PUT'    | '/credentials/theirs'     | kubernetes('theirs')                          | 'application/json' | { it.interceptor }
    'a DELETE of a Clouddriver account'   | 'DELETE' | '/credentials/theirs'     | null                                          | null               | { it.interceptor }
    'a listing'                           | 'GET'    | '/credentials'            | null                                          | null               | { it.interceptor }
    'another path'                        | 'POST'   | '/credentials/type'       | kubernetes('team-a')                          | 'application/json' | { it.interceptor }
    'a path of another API'               | 'POST'   | '/credentialsOther'       | kubernetes('team-a')                          | 'application/json' | { it.interceptor }
  }

  def "a bad body is refused with a 400 naming the problem, before Clouddriver sees it: #problem"() {
    when:
    def call = send(method, '/credentials', body)

    then:
    call.answeredBy == 'spinagent'
    call.status == 400
    call.body.message.contains(problem)
    call.reached().isEmpty()

    where:
    method | body                                                   || problem
    'POST' | '{"type": "kubernetes", "name": '                      || 'body: not a JSON account definition'
    'POST' | '["team-b"]'                                           || 'body: a JSON object'
    'POST' | '{"@type": "kubernetes", "name": "team-b"}'            || '"type": "kubernetes"'
    'POST' | '{"type": "kubernetes", "kubeconfigContents": "x"}'    || 'name: a kubernetes account needs a name'
    'PUT'  | '{"type": "kubernetes", "name": "  "}'                 || 'name: a kubernetes account needs a name'
    'POST' | '[' * 65 + ']' * 65                                    || 'JSON nested deeper than 64 levels'
  }

  def "a body over the limit is refused with a 413 naming the setting"() {
    when:
    def call = send('POST', '/credentials', kubernetes('team-a', [kubeconfigContents: 'x' * MAX_BODY]))

    then:
    call.status == 413
    call.body.message == "an account definition is at most $MAX_BODY bytes (spinagent.accounts.max-request-body)"
    call.reached().isEmpty()
  }

  def "an account Clouddriver's own checks refuse is not migrated: Clouddriver's answer is the caller's"() {
    when:
    def call = send('POST', '/credentials', kubernetes('team-a'), 'application/json', interceptor, 403)

    then:
    call.answeredBy == 'clouddriver'
    call.status == 403
    agent.commands().isEmpty()
    store.all().isEmpty()
  }

  def "an account that cannot be migrated is not created: Clouddriver's definition is removed again, and the answer says why"() {
    when: 'a name SpinAgent refuses (not a Kubernetes-style name)'
    def call = send('POST', '/credentials', kubernetes('Team_C'))

    then:
    call.reached() == ['POST']
    call.answeredBy == 'spinagent'
    call.status == 400
    call.body.message.startsWith("account 'Team_C' was not created: it could not be migrated to zone 'zone-a'" +
      " (spinagent.accounts.credentials-interceptor): name: 'Team_C' is not a valid account name")
    storage.fields('Team_C') == null
    store.all().isEmpty()
  }

  def "when removing the definition of an account that could not be migrated fails too, the answer says how to remove it"() {
    given:
    storage.deleteFailure = new IllegalStateException('account storage is read-only')

    when:
    def call = send('POST', '/credentials', kubernetes('Team_C'))

    then:
    call.status == 400
    call.body.message.contains("account 'Team_C' was stored by Clouddriver but could not be migrated to zone 'zone-a'")
    call.body.message.endsWith('removing it again failed too (account storage is read-only): delete it with DELETE /credentials/Team_C')
    storage.fields('Team_C') != null
  }

  def "a PUT of SpinAgent's account runs Clouddriver's checks on the tunnel definition it keeps, then changes the account at its agent"() {
    given:
    servedTeamA()

    when:
    def call = send('PUT', '/credentials', kubernetes('team-a', [kinds: ['Deployment', 'Service'],
      permissions: [READ: ['dev'], WRITE: ['ops']], cacheThreads: 4, checkPermissionsOnStartup: true]))

    then: "Clouddriver's PUT was given the definition it stores, nothing else"
    call.reached() == ['PUT']
    call.reachedClouddriver[0].body.kubeconfigContents == TUNNEL
    call.reachedClouddriver[0].body.cacheThreads == 0
    storage.fields('team-a').kubeconfigContents == TUNNEL

    and: 'the account changed at its agent, and the answer shows it'
    call.answeredBy == 'spinagent'
    call.status == 200
    call.body.zoneId == 'zone-a'
    call.body.definition.kinds == ['Deployment', 'Service']
    call.body.definition.permissions == [read: ['dev'], write: ['ops']]
    call.body.definition.kubeconfigContents == '<redacted>'
    agent.commands() == ['add team-a', 'update team-a']
    store.find('team-a').get().definition().kinds() == ['Deployment', 'Service']
  }

  def "a definition read from Clouddriver and sent back, its tunnel kubeconfig included, keeps the account's own kubeconfig"() {
    given:
    servedTeamA()
    def definition = storage.fields('team-a') + [kinds: ['Deployment']]

    when:
    def call = send('PUT', '/credentials/team-a', definition)

    then:
    call.status == 200
    agent.sent[1].command.updateAccount.account.kubeconfigContents == KUBECONFIG
    store.find('team-a').get().definition().kubeconfigContents() == KUBECONFIG
  }

  def "a PUT SpinAgent cannot honour is refused, naming the field, and changes nothing: #problem"() {
    given:
    servedTeamA()
    if (withoutDefinition) {
      storage.delete('team-a')
    }

    when:
    def call = send('PUT', path, kubernetes('team-a', fields))

    then:
    call.answeredBy == 'spinagent'
    call.status == status
    call.body.message.contains(problem)
    call.reached().isEmpty()
    agent.commands() == ['add team-a']
    store.find('team-a').get().definition().kinds().isEmpty()

    where:
    path                    | fields                                     | withoutDefinition || status | problem
    '/credentials'          | [kubectlExecutable: '/usr/bin/kubectl']    | false             || 400    | 'kubectlExecutable: not kept for an account SpinAgent serves'
    '/credentials'          | [permissions: [EXECUTE: ['ops']]]          | false             || 400    | 'permissions.EXECUTE: SpinAgent accounts have READ and WRITE roles only'
    '/credentials/other'    | [:]                                        | false             || 400    | "name: 'team-a' differs from the account in the path ('other')"
    '/credentials'          | [kinds: ['Deployment']]                    | true              || 409    | "account 'team-a' has no Clouddriver definition now (state ORPHANED)"
  }

  def "an account of an agent's configuration cannot be changed or deleted through /credentials; Clouddriver is not asked"() {
    given:
    store.putAgentAccount('configured', 'agent-1')

    when:
    def call = send(method, path, body)

    then:
    call.answeredBy == 'spinagent'
    call.status == 409
    call.body.message.startsWith("account 'configured' is in the configuration of agent(s) [agent-1]")
    call.body.message.contains("so it cannot be $verb here")
    call.reached().isEmpty()

    where:
    method   | path                      | body                     || verb
    'PUT'    | '/credentials'            | kubernetes('configured') || 'changed'
    'DELETE' | '/credentials/configured' | null                     || 'deleted'
  }

  def "a DELETE of SpinAgent's account: once Clouddriver deleted the definition, the account is deleted at its agent"() {
    given:
    servedTeamA()

    when:
    def call = send('DELETE', '/credentials/team-a')

    then:
    call.reached() == ['DELETE']
    call.answeredBy == 'clouddriver'
    call.status == 200
    storage.fields('team-a') == null
    agent.commands() == ['add team-a', 'remove team-a']
    store.find('team-a').get().state() == AccountState.REMOVED
  }

  def "a DELETE SpinAgent cannot carry out after Clouddriver's says so, and how to finish it"() {
    given:
    servedTeamA()
    replicaServing = { name -> Optional.of('replica-2') }

    when:
    def call = send('DELETE', '/credentials/team-a')

    then:
    call.reached() == ['DELETE']
    call.answeredBy == 'spinagent'
    call.status == 409
    call.body.message.startsWith("Clouddriver deleted the definition of account 'team-a', but SpinAgent could not delete the account:")
    call.body.message.endsWith('; delete it with DELETE /spinagent/accounts/team-a')
    store.find('team-a').get().state() == AccountState.ORPHANED
  }

  def "switched on without a zone or an agent to migrate to, Clouddriver does not start"() {
    when:
    interceptor(true, ' ', Optional.of(storage.definitions))

    then:
    def e = thrown(IllegalArgumentException)
    e.message == 'spinagent.accounts.credentials-interceptor (enabled): give exactly one of zone-id and agent-id' +
      ' (the agents that accounts created through /credentials are migrated to)'
  }
}
