package io.spinagent.plugin.accounts

import static io.spinagent.plugin.accounts.AccountRequestException.Problem.CONFLICT
import static io.spinagent.plugin.accounts.AccountRequestException.Problem.INVALID
import static io.spinagent.plugin.accounts.AccountRequestException.Problem.NOT_FOUND
import static io.spinagent.plugin.accounts.AccountRequestException.Problem.SERVED_ELSEWHERE
import static io.spinagent.plugin.accounts.AccountRequestException.Problem.TOO_MANY
import static io.spinagent.plugin.accounts.AccountRequestException.Problem.UNAVAILABLE
import static io.spinagent.plugin.accounts.RecordingAgentLink.accepting
import static io.spinagent.plugin.accounts.RecordingAgentLink.refusing

import io.spinagent.plugin.time.FakeClock
import io.spinagent.protocol.v1.AccountInfo
import java.time.Duration
import spock.lang.Specification
import spock.lang.Tag

/**
 * Dynamic accounts ({@link DynamicAccounts} and its {@link DynamicAccountReconciler}) through their
 * public methods only: stored first, pushed to the agents, settled
 * by the agents' answers whenever they come. The agents are recorded links whose answers the spec
 * gives; the store, Clouddriver's account storage and the registry are in memory, on a fake clock.
 * The wait for answers is zero: an agent that answers as the command arrives answered in time, one
 * the spec answers later answered late.
 */
@Tag('one-class')
class DynamicAccountsSpec extends Specification {

  static final String KUBECONFIG = '''\
    apiVersion: v1
    kind: Config
    current-context: prod
    contexts:
    - name: prod
      context: {cluster: prod, user: prod}
    clusters:
    - name: prod
      cluster: {server: 'https://10.0.0.1:6443'}
    users:
    - name: prod
      user: {token: a-token}
    '''.stripIndent()

  FakeClock time = new FakeClock()
  InMemoryAccountStore store = new InMemoryAccountStore(time.clock)
  AccountRegistry registry = new AccountRegistry(time.clock, Duration.ofMinutes(10))
  InMemoryAccountStorage clouddriver = new InMemoryAccountStorage()
  List<RecordingAgentLink> connected = []
  /** Which other replica holds the stream of an account's agents: none, unless a feature says. */
  Closure<Optional<String>> replicaServing = { name -> Optional.empty() }
  DynamicAccounts accounts = dynamicAccounts()
  /** What keeps agents in step with the stored accounts as they connect and the sweep runs. */
  DynamicAccountReconciler reconciler = new DynamicAccountReconciler(registry, { connected } as ConnectedAgents, store)

  DynamicAccounts dynamicAccounts(Map options = [:]) {
    new DynamicAccounts(registry, { connected } as ConnectedAgents, options.store ?: store,
      options.containsKey('clouddriver') ? options.clouddriver : Optional.of(clouddriver.definitions),
      new DynamicAccountLimits(Duration.ZERO, options.perAgent ?: 50, options.perZone ?: 50),
      { name -> replicaServing(name) } as StreamsElsewhere)
  }

  /** An account for agent-1 by default, reaching its cluster with {@link #KUBECONFIG}. */
  static DynamicAccountSpec account(Map fields = [:]) {
    def f = [name: 'prod', agentId: 'agent-1', kubeconfigContents: KUBECONFIG] + fields
    new DynamicAccountSpec(f.name, f.agentId, f.zoneId, f.kubeconfigContents, f.kubeconfigFile, f.serviceAccount,
      f.context, f.namespaces, null, f.kinds, null, f.permissions, null, null, null)
  }

  static final Closure<Optional<String>> ELSEWHERE = { name -> Optional.of('replica-2') }
  static final Closure<Optional<String>> DATABASE_DOWN = { name -> throw new IllegalStateException('connection refused') }

  /** The changes that reach an account's agents, so only the replica holding their stream runs them. */
  static final Map<String, Closure> CHANGES = [
    'update'    : { DynamicAccounts a -> a.update(account(namespaces: ['web'])) },
    'switch off': { DynamicAccounts a -> a.setActive('prod', false) },
    'delete'    : { DynamicAccounts a -> a.delete('prod') }]

  static AccountInfo dynamicClaim(String name) {
    RecordingMember.claimOf(name).toBuilder().setDynamic(true).build()
  }

  def "a new account is stored, then sent to its agent; taken at once, the request says it is done"() {
    given:
    def agent = accepting('agent-1')
    connected << agent

    when:
    def change = accounts.create(account(namespaces: ['web']))

    then:
    agent.commands() == ['add prod']
    agent.sent[0].command.addAccount.account.kubeconfigContents == KUBECONFIG
    agent.sent[0].command.addAccount.account.namespacesList == ['web']
    !change.awaitingAgents()
    change.account().source() == AccountSource.API
    change.account().definition() == account(namespaces: ['web'])

    and: 'it waits for its agent to claim it'
    store.find('prod').get().state() == AccountState.ORPHANED
  }

  def "an account its agent refuses is not kept: the request fails with the agent's reason"() {
    given:
    connected << refusing('agent-1', 'cannot reach the cluster')

    when:
    accounts.create(account())

    then:
    def e = thrown(AccountRequestException)
    e.problem() == INVALID
    e.message == "account 'prod' was refused: agent 'agent-1': cannot reach the cluster"
    store.find('prod').isEmpty()
  }

  def "of a zone's agents, each is sent the account; one that takes it is enough"() {
    given:
    connected << refusing('agent-1', 'no route to the cluster', 'zone-a') << accepting('agent-2', 'zone-a') <<
      accepting('agent-3', 'zone-b')

    when:
    def change = accounts.create(account(agentId: null, zoneId: 'zone-a'))

    then:
    connected*.commands() == [['add prod'], ['add prod'], []]
    !change.awaitingAgents()
    store.find('prod').get().zoneId() == 'zone-a'
  }

  def "an account whose agent has not answered within the wait is stored, and the request says so; a late acceptance keeps it"() {
    given:
    def agent = new RecordingAgentLink('agent-1')
    connected << agent

    when:
    def change = accounts.create(account())

    then:
    change.awaitingAgents()
    agent.commands() == ['add prod']
    store.find('prod').present

    when:
    agent.accept()

    then:
    store.find('prod').get().state() == AccountState.ORPHANED
    store.find('prod').get().lastError() == null
  }

  def "an account every agent refuses late is removed once the last one answered, with all their reasons; its name is free again"() {
    given: 'one agent of the zone refuses at once, the other answers late'
    def late = new RecordingAgentLink('agent-2', 'zone-a')
    connected << refusing('agent-1', 'bad kubeconfig', 'zone-a') << late

    when:
    def change = accounts.create(account(agentId: null, zoneId: 'zone-a'))

    then: 'a refusal while another agent has still to answer does not fail the request'
    change.awaitingAgents()
    store.find('prod').get().state() == AccountState.ORPHANED

    when: 'the late agent disconnects without answering'
    late.disconnect()

    then:
    store.find('prod').get().state() == AccountState.REMOVED
    store.find('prod').get().lastError() ==
      "refused by its agents: agent 'agent-2': agent 'agent-2' disconnected; agent 'agent-1': bad kubeconfig"

    when: 'the name is asked for again, from an agent that takes it'
    connected.clear()
    connected << accepting('agent-1')
    accounts.create(account())

    then:
    store.find('prod').get().state() == AccountState.ORPHANED
    store.find('prod').get().lastError() == null
  }

  def "an account is refused, and nothing stored or sent, when no agent that would serve it is connected here"() {
    given:
    connected << accepting('agent-2', 'zone-b')

    when:
    accounts.create(account(fields))

    then:
    def e = thrown(AccountRequestException)
    e.problem() == NOT_FOUND
    e.message.startsWith(message)
    e.message.contains('send the request to the one it is connected to')
    store.all().isEmpty()
    connected[0].commands().isEmpty()

    where:
    fields                            || message
    [agentId: 'agent-1']              || "agentId: no agent 'agent-1' is connected to this Clouddriver replica"
    [agentId: null, zoneId: 'zone-a'] || "zoneId: no agent of zone 'zone-a' is connected to this Clouddriver replica"
  }

  def "a name taken by #holder is refused as a conflict"() {
    given:
    def agent = accepting('agent-1')
    connected << agent
    taken(this)

    when:
    accounts.create(account())

    then:
    def e = thrown(AccountRequestException)
    e.problem() == CONFLICT
    e.message.contains(message)
    agent.commands().findAll { it == 'add prod' }.size() == sentBefore

    where:
    taken << [
      { DynamicAccountsSpec s -> s.registry.claim(new RecordingMember('agent-9'), RecordingMember.claimOf('prod')) },
      { DynamicAccountsSpec s -> s.accounts.create(account()) },
      { DynamicAccountsSpec s -> s.clouddriver.putKubernetes(name: 'prod', kubeconfigContents: 'theirs') }]
    sentBefore << [0, 1, 0]
    holder << ["an agent's own account", 'a stored account', 'a Clouddriver account']
    message << [
      "account 'prod' already exists: an agent serves it from its configuration",
      "account 'prod' already exists (API, ORPHANED)",
      "Clouddriver already has an account named 'prod': put it under SpinAgent with POST /spinagent/accounts/migrate"]
  }

  def "a definition that cannot work is refused, naming the field, before anything is stored or sent"() {
    given:
    def agent = accepting('agent-1')
    connected << agent

    when:
    accounts.create(account(fields))

    then:
    def e = thrown(AccountRequestException)
    e.problem() == INVALID
    e.message.contains(problem)
    store.all().isEmpty()
    agent.commands().isEmpty()

    where:
    fields                                                          || problem
    [name: '']                                                      || 'name: required'
    [name: 'Prod_1!']                                               || "name: 'Prod_1!' is not a valid account name"
    [zoneId: 'zone-a']                                              || 'agentId, zoneId: give exactly one'
    [kubeconfigContents: null]                                      || 'kubeconfigContents, kubeconfigFile, serviceAccount: give exactly one'
    [kubeconfigFile: '/opt/kube/config']                            || 'kubeconfigContents, kubeconfigFile, serviceAccount: give exactly one'
    [kubeconfigContents: null, kubeconfigFile: 'kube/config']       || "kubeconfigFile: 'kube/config' is not an absolute path"
    [kubeconfigContents: null, kubeconfigFile: 'encrypted:k8s!n:a'] || 'is a secret reference'
    [kubeconfigContents: 'secret://vault/kubeconfig']               || 'is a secret reference'
    [context: 'staging']                                            || "kubeconfigContents: no context named 'staging'"
    [kubeconfigContents: 'clusters: [']                             || 'kubeconfigContents: not valid YAML'
  }

  def "an agent or zone at its limit of dynamic accounts is refused more, naming the setting; removed accounts do not count"() {
    given:
    def agent = accepting('agent-1', 'zone-a')
    connected << agent
    accounts = dynamicAccounts(perAgent: 1, perZone: 1)
    accounts.create(account(name: 'first'))

    when:
    accounts.create(account(name: 'second'))

    then:
    def e = thrown(AccountRequestException)
    e.problem() == TOO_MANY
    e.message.contains("agent 'agent-1' already serves 1 dynamic accounts")
    e.message.contains('spinagent.accounts.max-dynamic-per-agent')
    !store.find('second').present

    when: 'the first one is deleted'
    accounts.delete('first')
    accounts.create(account(name: 'second'))

    then:
    store.find('second').present
    agent.commands() == ['add first', 'remove first', 'add second']
  }

  def "without a database, #what is refused with one message"() {
    given:
    connected << accepting('agent-1')
    def noDatabase = dynamicAccounts(store: AccountStore.NONE)

    when:
    request(noDatabase)

    then:
    def e = thrown(AccountRequestException)
    e.problem() == UNAVAILABLE
    e.message.contains("dynamic accounts need Clouddriver's SQL database (sql.enabled: true)")
    connected[0].commands().isEmpty()

    where:
    what << ['creating an account', 'changing one', 'migrating one']
    request << [
      { DynamicAccounts a -> a.create(account()) },
      { DynamicAccounts a -> a.update(account()) },
      { DynamicAccounts a -> a.migrate(['legacy'], 'agent-1', null) },
    ]
  }

  def "a new definition goes to the agents meant for it and is stored; an agent no longer meant for it is told to remove it"() {
    given:
    def first = accepting('agent-1')
    def second = accepting('agent-2')
    connected << first << second
    accounts.create(account())

    when:
    def change = accounts.update(account(agentId: 'agent-2', namespaces: ['web']))

    then:
    !change.awaitingAgents()
    second.commands() == ['update prod']
    second.sent[0].command.updateAccount.account.namespacesList == ['web']
    first.commands() == ['add prod', 'remove prod']
    store.find('prod').get().definition() == account(agentId: 'agent-2', namespaces: ['web'])
    store.find('prod').get().agentId() == 'agent-2'
  }

  def "a change every agent refuses at once leaves the stored definition as it was"() {
    given:
    def agent = new RecordingAgentLink('agent-1')
    agent.answerAtOnce = { command -> command.hasUpdateAccount() ? RecordingAgentLink.refusal('namespace web does not exist') : RecordingAgentLink.OK }
    connected << agent
    accounts.create(account())

    when:
    accounts.update(account(namespaces: ['web']))

    then:
    def e = thrown(AccountRequestException)
    e.problem() == INVALID
    e.message == "account 'prod' was refused: agent 'agent-1': namespace web does not exist"
    store.find('prod').get().definition() == account()
  }

  def "a change its agent refuses late is kept as asked, and the refusal recorded"() {
    given:
    def agent = new RecordingAgentLink('agent-1')
    connected << agent
    accounts.create(account())
    agent.accept()

    when:
    def change = accounts.update(account(namespaces: ['web']))

    then: 'stored as asked: it is what the agent is sent when it reconnects'
    change.awaitingAgents()
    store.find('prod').get().definition().namespaces() == ['web']

    when:
    agent.refuse('namespace web does not exist')

    then:
    def stored = store.find('prod').get()
    stored.lastError() == "the change was refused: agent 'agent-1': namespace web does not exist"
    stored.retryCount() == 1
    stored.state() == AccountState.ORPHANED
    stored.definition().namespaces() == ['web']
  }

  def "only dynamic accounts can be given a new definition"() {
    given:
    connected << accepting('agent-1')
    store.putAgentAccount('configured', 'agent-1')

    when:
    accounts.update(account(name: name))

    then:
    def e = thrown(AccountRequestException)
    e.problem() == problem
    e.message == message

    where:
    name         | problem   || message
    'configured' | CONFLICT  || "account 'configured' comes from an agent's configuration: change it there"
    'unknown'    | NOT_FOUND || "no account named 'unknown'"
  }

  def "a change (#change) of an account whose agents another replica holds is refused, naming that replica; so is one whose replica cannot be looked up (#problem)"() {
    given:
    def agent = accepting('agent-1')
    connected << agent
    accounts.create(account())
    replicaServing = lookup

    when:
    CHANGES[change](accounts)

    then:
    def e = thrown(AccountRequestException)
    e.problem() == problem
    e.message.contains(message)
    agent.commands() == ['add prod']
    store.find('prod').get().definition() == account()
    !store.find('prod').get().inactive()
    store.find('prod').get().state() == AccountState.ORPHANED

    where:
    change       | lookup         || problem          | message
    'update'     | ELSEWHERE      || SERVED_ELSEWHERE | "served by Clouddriver replica 'replica-2', which holds its agent's stream"
    'switch off' | ELSEWHERE      || SERVED_ELSEWHERE | "send the request to that replica to switch off the account"
    'delete'     | ELSEWHERE      || SERVED_ELSEWHERE | "send the request to that replica to delete the account"
    'update'     | DATABASE_DOWN  || UNAVAILABLE      | "cannot look up which Clouddriver replica serves account 'prod' (database: connection refused)"
    'switch off' | DATABASE_DOWN  || UNAVAILABLE      | "cannot look up which Clouddriver replica serves account 'prod'"
    'delete'     | DATABASE_DOWN  || UNAVAILABLE      | "cannot look up which Clouddriver replica serves account 'prod'"
  }

  def "switching an account off and on goes to the registry, which tells its agent, and to the store"() {
    given: 'an agent serves prod from its configuration'
    def member = new RecordingMember('agent-1')
    registry.claim(member, RecordingMember.claimOf('prod'))
    store.putAgentAccount('prod', 'agent-1')

    when:
    accounts.setActive('prod', false)

    then:
    store.find('prod').get().inactive()
    registry.isInactive('prod')
    member.heard() == ['prod: refused']

    when:
    accounts.setActive('prod', true)

    then:
    !store.find('prod').get().inactive()
    !registry.isInactive('prod')
    member.heard() == ['prod: refused', 'prod: caching']
  }

  def "an account neither stored nor served cannot be #what"() {
    when:
    request(accounts)

    then:
    def e = thrown(AccountRequestException)
    e.problem() == NOT_FOUND
    e.message == "no account named 'ghost'"

    where:
    what << ['switched off', 'deleted']
    request << [
      { DynamicAccounts a -> a.setActive('ghost', false) },
      { DynamicAccounts a -> a.delete('ghost') },
    ]
  }

  def "a deleted dynamic account is removed from its agents, its Clouddriver definition goes, and its row is kept as REMOVED"() {
    given:
    def agent = accepting('agent-1')
    connected << agent
    accounts.create(account())
    clouddriver.putKubernetes(name: 'prod', kubeconfigContents: 'the tunnel', cacheThreads: 0)
    store.setClouddriverDefinition('prod', true)

    when:
    accounts.delete('prod')

    then:
    agent.commands() == ['add prod', 'remove prod']
    store.find('prod').get().state() == AccountState.REMOVED
    !store.find('prod').get().clouddriverDefinition()
    clouddriver.fields('prod') == null
  }

  def "deleting an account the registry serves tells its members why, and leaves the rest to the registry's listeners"() {
    given:
    def agent = accepting('agent-1')
    connected << agent
    accounts.create(account())
    def member = new RecordingMember('agent-1')
    registry.claim(member, dynamicClaim('prod'))

    when:
    accounts.delete('prod')

    then:
    agent.commands() == ['add prod', 'remove prod']
    member.decisions*.reason == ["account 'prod' was deleted through the SpinAgent API"]
    registry.find('prod').isEmpty()
  }

  def "an account in an agent's configuration is not deleted while the agent serves it; once no agent does, it is"() {
    given:
    def member = new RecordingMember('agent-1')
    registry.claim(member, RecordingMember.claimOf('prod'))
    store.putAgentAccount('prod', 'agent-1')

    when:
    accounts.delete('prod')

    then:
    def e = thrown(AccountRequestException)
    e.problem() == CONFLICT
    e.message.startsWith("account 'prod' is in the configuration of agent(s) [agent-1]: remove it there")
    e.message.contains('{"state": "INACTIVE"}')
    registry.find('prod').get().state() == AccountState.ACTIVATING

    when: 'its agent left'
    registry.release(member)
    accounts.delete('prod')

    then:
    registry.find('prod').isEmpty()
    member.decisions.isEmpty()
  }

  def "an agent that connects is sent again the dynamic accounts meant for it; a refusal is recorded with the account"() {
    given: 'accounts for agent-1, for its zone, for another agent, and one removed'
    connected << accepting('agent-1', 'zone-a') << accepting('agent-2', 'zone-b')
    accounts.create(account(name: 'by-agent'))
    accounts.create(account(name: 'by-zone', agentId: null, zoneId: 'zone-a'))
    accounts.create(account(name: 'other', agentId: 'agent-2'))
    accounts.create(account(name: 'deleted'))
    accounts.delete('deleted')
    def reconnected = new RecordingAgentLink('agent-1', 'zone-a')

    when:
    reconciler.welcomed(reconnected)

    then:
    reconnected.commands() == ['add by-agent', 'add by-zone']

    when:
    reconnected.accept()
    reconnected.refuse('cannot reach the cluster')

    then:
    store.find('by-agent').get().lastError() == null
    store.find('by-zone').get().lastError() == "agent 'agent-1': cannot reach the cluster"
  }

  def "an agent that connects while the store cannot be read is sent nothing, and its session goes on"() {
    given:
    def agent = new RecordingAgentLink('agent-1')
    store.failure = new IllegalStateException('database down')

    when:
    reconciler.welcomed(agent)

    then:
    noExceptionThrown()
    agent.commands().isEmpty()
  }

  def "a dynamic account an agent claims is refused, and removed from the agent, unless it is stored for that agent"() {
    given:
    connected << accepting('agent-1') << accepting('agent-2')
    accounts.create(account(name: 'mine'))
    accounts.create(account(name: 'theirs', agentId: 'agent-2'))
    accounts.create(account(name: 'deleted'))
    accounts.delete('deleted')
    def agent = new RecordingAgentLink('agent-1')

    expect: 'its own, and any account of its configuration, pass'
    !reconciler.refusal(agent, dynamicClaim('mine')).present
    !reconciler.refusal(agent, RecordingMember.claimOf('theirs')).present
    agent.commands().isEmpty()

    when:
    def deleted = reconciler.refusal(agent, dynamicClaim('deleted'))
    def theirs = reconciler.refusal(agent, dynamicClaim('theirs'))
    def unknown = reconciler.refusal(agent, dynamicClaim('unknown'))

    then:
    deleted.get() == "dynamic account 'deleted' is not stored in Clouddriver for agent 'agent-1' (deleted through" +
      " the API, or meant for another agent): the agent is told to remove it"
    theirs.present
    unknown.present
    agent.commands() == ['remove deleted', 'remove theirs', 'remove unknown']
  }

  def "a dynamic claim is let through when the store cannot be read"() {
    given:
    def agent = new RecordingAgentLink('agent-1')
    store.failure = new IllegalStateException('database down')

    expect:
    !reconciler.refusal(agent, dynamicClaim('prod')).present
    agent.commands().isEmpty()
  }

  def "accounts the grace period removed are withdrawn from the connected agents meant for them"() {
    given:
    def first = accepting('agent-1')
    def second = accepting('agent-2')
    connected << first << second
    accounts.create(account())

    when:
    reconciler.removed(['prod', 'of-a-configuration'])

    then:
    first.commands() == ['add prod', 'remove prod']
    second.commands().isEmpty()
  }

  def "a Clouddriver account is migrated to the agent: its kubeconfig, namespaces and permissions go with it"() {
    given:
    def agent = accepting('agent-1')
    connected << agent
    clouddriver.putKubernetes(name: 'legacy', kubeconfigContents: KUBECONFIG, namespaces: ['web'],
      permissions: [READ: ['dev'], WRITE: ['ops']])

    when:
    def results = accounts.migrate(['legacy'], 'agent-1', null)

    then:
    results == [new DynamicAccounts.MigrationResult('legacy', true, null, null)]
    agent.commands() == ['add legacy']
    agent.sent[0].command.addAccount.account.kubeconfigContents == KUBECONFIG
    def stored = store.find('legacy').get()
    stored.source() == AccountSource.MIGRATED
    stored.definition().namespaces() == ['web']
    stored.permissions() == new AccountPermissions(['dev'], ['ops'])

    and: "Clouddriver's definition stays until the agent serves the account"
    clouddriver.fields('legacy').kubeconfigContents == KUBECONFIG
  }

  def "a migration may name a kubeconfig file on the agent's machine instead of Clouddriver's kubeconfig"() {
    given:
    def agent = accepting('agent-1')
    connected << agent
    clouddriver.putKubernetes(name: 'legacy', kubeconfigContents: KUBECONFIG)

    when:
    accounts.migrate(['legacy'], 'agent-1', null, '/opt/spinagent/kubeconfigs/legacy')

    then:
    def sent = agent.sent[0].command.addAccount.account
    sent.kubeconfigFile == '/opt/spinagent/kubeconfigs/legacy'
    sent.kubeconfigContents == ''
    store.find('legacy').get().definition().kubeconfigFile() == '/opt/spinagent/kubeconfigs/legacy'
  }

  def "each account of a migration succeeds or fails alone, saying why; a failed one is not stored"() {
    given:
    connected << new RecordingAgentLink('agent-1').tap {
      answerAtOnce = { command -> command.addAccount.account.name == 'refused' ? RecordingAgentLink.refusal('forbidden') : RecordingAgentLink.OK }
    }
    clouddriver.putKubernetes(name: 'legacy', kubeconfigContents: KUBECONFIG)
    clouddriver.putKubernetes(name: 'refused', kubeconfigContents: KUBECONFIG)

    when:
    def results = accounts.migrate(['missing', 'legacy', 'refused'], 'agent-1', null)

    then:
    results*.name() == ['missing', 'legacy', 'refused']
    results*.migrated() == [false, true, false]
    results[0].error() == "Clouddriver has no account definition named 'missing'"
    results[2].error() == "account 'refused' was refused: agent 'agent-1': forbidden"
    store.all()*.name() == ['legacy']
  }

  def "a migration whose agent has not answered yet says so"() {
    given:
    connected << new RecordingAgentLink('agent-1')
    clouddriver.putKubernetes(name: 'legacy', kubeconfigContents: KUBECONFIG)

    expect:
    accounts.migrate(['legacy'], 'agent-1', null) == [new DynamicAccounts.MigrationResult('legacy', true, null, true)]
  }

  def "without Clouddriver's account storage, migrating is refused with one message"() {
    given:
    connected << accepting('agent-1')

    when:
    dynamicAccounts(clouddriver: Optional.empty()).migrate(['legacy'], 'agent-1', null)

    then:
    def e = thrown(AccountRequestException)
    e.problem() == UNAVAILABLE
    e.message == "migration needs Clouddriver's account storage (account.storage.enabled: true)"
  }
}
