package io.spinagent.plugin.web

import static io.spinagent.plugin.accounts.DynamicAccountsSpec.KUBECONFIG

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.plugin.accounts.AccountPermissions
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.accounts.AccountRequestException
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.ConnectedAgents
import io.spinagent.plugin.accounts.DynamicAccountLimits
import io.spinagent.plugin.accounts.DynamicAccounts
import io.spinagent.plugin.accounts.InMemoryAccountStorage
import io.spinagent.plugin.accounts.InMemoryAccountStore
import io.spinagent.plugin.accounts.RecordingAgentLink
import io.spinagent.plugin.accounts.RecordingMember
import io.spinagent.plugin.accounts.StreamsElsewhere
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.ha.ReplicaGroup
import io.spinagent.plugin.identity.ReplicaIdentity
import io.spinagent.plugin.time.FakeClock
import java.time.Duration
import org.jooq.exception.DataAccessException
import org.springframework.http.ResponseEntity
import org.springframework.util.unit.DataSize
import spock.lang.Specification
import spock.lang.Tag

/**
 * Armory's dynamic accounts API called as a plain object: request bodies are streams, answers the
 * controller's return values (and its own error handler's, for what it throws). Each account goes
 * through the real account commands to recorded agents of zone {@code zone-a}, with the store and
 * registry in memory.
 */
@Tag('one-class')
class ArmoryAccountsControllerSpec extends Specification {

  static final ObjectMapper JSON = new ObjectMapper()

  FakeClock time = new FakeClock()
  InMemoryAccountStore store = new InMemoryAccountStore(time.clock)
  AccountRegistry registry = new AccountRegistry(time.clock, Duration.ofMinutes(10))
  InMemoryAccountStorage storage = new InMemoryAccountStorage()
  List<RecordingAgentLink> connected = [RecordingAgentLink.accepting('agent-1', 'zone-a')]
  SpinAgentProperties properties = new SpinAgentProperties()
  DynamicAccounts dynamicAccounts = new DynamicAccounts(registry, { connected } as ConnectedAgents, store,
    Optional.of(storage.definitions), new DynamicAccountLimits(Duration.ZERO, 50, 50), { name -> Optional.empty() } as StreamsElsewhere)
  ArmoryAccountsController controller = controller()

  ArmoryAccountsController controller() {
    def commands = new AccountCommands(registry, store, dynamicAccounts, CommandRouting.HERE, ReplicaGroup.ALONE, 'replica-1',
      properties.accounts.maxRequestBody.toBytes())
    new ArmoryAccountsController(registry, store, commands, new ReplicaIdentity(), properties)
  }

  RecordingAgentLink getAgent() {
    connected[0]
  }

  static InputStream body(Object json) {
    new ByteArrayInputStream((json instanceof String ? json : JSON.writeValueAsString(json)).bytes)
  }

  static Map<String, Object> definition(String name, Map<String, Object> fields = [:]) {
    [name: name, zoneId: 'zone-a', kubeconfigContents: KUBECONFIG] + fields
  }

  /** The answer as status and each account's name, status and error or account. */
  static Map<String, Object> answer(ResponseEntity<ArmoryAccountsController.Results> response) {
    [status: response.statusCode.value(), accounts: response.body.accounts().collect { r ->
      [name: r.name(), status: r.status()] + (r.error() != null ? [error: r.error()] : [:])
    }]
  }

  /** What the controller's own error handler answers for what a request throws. */
  Map<String, Object> refusal(Closure request) {
    try {
      request()
    } catch (AccountRequestException e) {
      def response = controller.accountRequest(e)
      return [status: response.statusCode.value(), message: response.body.message()]
    }
    throw new AssertionError('the request was not refused')
  }

  def "each account of a create is created at the zone's agent, Armory's permission lists read as roles"() {
    when:
    def response = controller.create(body([
      definition('team-a', [permissions: [[READ: ['dev']], [WRITE: ['ops']]]]),
      definition('team-b', [namespaces: ['web']])]))

    then:
    answer(response) == [status: 200, accounts: [[name: 'team-a', status: 201], [name: 'team-b', status: 201]]]
    response.body.accounts()[0].account().get('zoneId').asText() == 'zone-a'
    agent.commands() == ['add team-a', 'add team-b']
    store.find('team-a').get().permissions() == new AccountPermissions(['dev'], ['ops'])
    store.find('team-b').get().definition().namespaces() == ['web']
  }

  def "an account the database fails on answers 503, naming the database and its error; nothing reaches the agent"() {
    given: 'the shared table goes away mid-restart'
    store.failure = new DataAccessException('SQL [select * from spinagent_accounts where name = ?]',
      new IllegalStateException('FATAL: terminating connection due to administrator command'))

    when:
    def response = controller.create(body([definition('team-a')]))

    then:
    answer(response) == [status: 503, accounts: [[name: 'team-a', status: 503,
      error: "account 'team-a': the SpinAgent database cannot be reached (FATAL: terminating connection due to" +
        " administrator command); try again"]]]
    agent.commands().isEmpty()
  }

  def "a single account object is taken as an array of one"() {
    expect:
    answer(controller.create(body(definition('team-a')))).accounts*.status == [201]
  }

  def "a body with any bad element is refused as a whole, naming the element and field, before any account is touched: #problem"() {
    given:
    properties.accounts.maxAccountsPerRequest = 3
    controller = controller()

    when:
    def refused = refusal { controller.create(body(json)) }

    then:
    refused.status == 400
    refused.message.contains(problem)
    agent.commands().isEmpty()
    store.all().isEmpty()

    where:
    json                                                                   || problem
    [definition('team-a'), definition('team-b', [unknownField: true])]     || '[1].unknownField: unknown field'
    [definition('team-a'), definition('team-a')]                           || "[1].name: 'team-a' is named more than once in the request"
    [definition('team-a'), 'team-b']                                       || '[1]: an account (a JSON object) is required'
    [definition('team-a'), [zoneId: 'zone-a']]                             || '[1].name: required'
    [definition('team-a', [permissions: [[ADMIN: ['ops']]]])]              || '[0].permissions.ADMIN: unknown permission (READ or WRITE)'
    [definition('team-a', [permissions: [READ: 'ops']])]                  || '[0].permissions.READ: a list of roles is required'
    (1..4).collect { definition("team-$it") }                              || 'body: 4 accounts is over the limit of 3 per request (spinagent.accounts.max-accounts-per-request)'
    []                                                                     || 'body: the array names no account'
    '"team-a"'                                                             || 'body: a JSON array of accounts is required'
    '[{"name": "team-a", "name": "team-b"}]'                               || "body: field 'name' is given twice"
  }

  def "a body over the limit is refused with 413, naming the setting"() {
    given:
    properties.accounts.maxRequestBody = DataSize.ofBytes(100)
    controller = controller()

    expect:
    refusal { controller.create(body([definition('team-a')])) } ==
      [status: 413, message: 'body: more than 100 bytes is over the limit of 100 bytes (spinagent.accounts.max-request-body)']
  }

  def "some accounts created and others not: 207, each result saying why"() {
    when:
    def response = controller.create(body([definition('team-a'), definition('team-b', [zoneId: 'zone-b'])]))

    then:
    def answered = answer(response)
    answered.status == 207
    answered.accounts[0] == [name: 'team-a', status: 201]
    answered.accounts[1].status == 404
    answered.accounts[1].error.startsWith("zoneId: no agent of zone 'zone-b' is connected to this Clouddriver replica")
  }

  def "no account created: the status is the first account's"() {
    given:
    connected[0] = RecordingAgentLink.refusing('agent-1', 'cannot reach the cluster', 'zone-a')

    expect:
    answer(controller.create(body([definition('team-a'), definition('team-b', [zoneId: 'zone-b'])]))).status == 400
  }

  def "accounts whose agents have not answered yet are accepted with 202"() {
    given:
    connected[0] = new RecordingAgentLink('agent-1', 'zone-a')

    expect:
    answer(controller.create(body([definition('team-a')]))) == [status: 202, accounts: [[name: 'team-a', status: 202]]]
  }

  def "new definitions go to the accounts' agents"() {
    given:
    controller.create(body([definition('team-a')]))

    when:
    def response = controller.update(body([definition('team-a', [kinds: ['Deployment']])]))

    then:
    answer(response) == [status: 200, accounts: [[name: 'team-a', status: 200]]]
    agent.commands() == ['add team-a', 'update team-a']
    store.find('team-a').get().definition().kinds() == ['Deployment']
  }

  def "accounts are switched off and on by state; only ACTIVE and INACTIVE, and only in the account's own zone"() {
    given:
    controller.create(body([definition('team-a')]))

    when:
    def off = controller.setState(body([[name: 'team-a', state: 'inactive', zoneId: 'zone-a']]))

    then:
    answer(off) == [status: 200, accounts: [[name: 'team-a', status: 200]]]
    store.find('team-a').get().inactive()
    registry.isInactive('team-a')

    when:
    controller.setState(body([[name: 'team-a', state: 'ACTIVE']]))

    then:
    !store.find('team-a').get().inactive()

    and: 'what cannot be set is refused, naming the element and field'
    refusal { controller.setState(body([[name: 'team-a', state: 'DELETING']])) }.message ==
      '[0].state: only ACTIVE or INACTIVE can be set, not DELETING'
    refusal { controller.setState(body([[name: 'team-a', state: 'SLEEPING']])) }.message.startsWith(
      "[0].state: 'SLEEPING' is not one of")
    refusal { controller.setState(body([[name: 'team-a']])) }.message == '[0].state: required, ACTIVE or INACTIVE'
    refusal { controller.setState(body([[name: 'team-a', state: 'ACTIVE', zoneId: 'zone-b']])) }.message ==
      "[0].zoneId: 'zone-b' is not the zone of account 'team-a' (zone-a); change an account's zone with PUT /armory/accounts/dynamic"
    refusal { controller.setState(body([[name: 'team-a', state: 'ACTIVE', kubeconfigContents: 'x']])) }.message.startsWith(
      '[0].kubeconfigContents: unknown field')
  }

  def "accounts are deleted by name or as objects, each removed from its agents"() {
    given:
    controller.create(body([definition('team-a'), definition('team-b')]))

    when:
    def response = controller.delete(body(['team-a', [name: 'team-b']]))

    then:
    answer(response) == [status: 200, accounts: [[name: 'team-a', status: 204], [name: 'team-b', status: 204]]]
    agent.commands() == ['add team-a', 'add team-b', 'remove team-a', 'remove team-b']
    store.all()*.state() == [AccountState.REMOVED, AccountState.REMOVED]
  }

  def "Clouddriver's accounts are migrated to a zone or an agent, which must be named"() {
    given:
    storage.putKubernetes(name: 'legacy', kubeconfigContents: KUBECONFIG)

    when:
    def response = controller.migrate(body([[name: 'legacy', zoneId: 'zone-a']]))

    then:
    answer(response) == [status: 200, accounts: [[name: 'legacy', status: 200]]]
    store.find('legacy').get().zoneId() == 'zone-a'
    agent.commands() == ['add legacy']

    and: 'without a zone or an agent, or with a kubeconfig file that is no path, it is refused'
    refusal { controller.migrate(body([[name: 'legacy']])) }.message.startsWith('[0].zoneId: required (or agentId, not both)')
    refusal { controller.migrate(body([[name: 'legacy', zoneId: 'zone-a', agentId: 'agent-1']])) }.message.startsWith('[0].zoneId: required')
    refusal { controller.migrate(body([[name: 'legacy', zoneId: 'zone-a', kubeconfigFile: 42]])) }.message.startsWith(
      "[0].kubeconfigFile: a path on the agent's machine")
  }

  def "accounts are listed in Armory's shape, by name, a page at a time"() {
    given: 'a dynamic account, and one an agent serves from its configuration'
    controller.create(body([definition('team-a')]))
    registry.claim(new RecordingMember('agent-1'), RecordingMember.claimOf('configured'))

    when:
    def first = controller.list(1, 1)
    def second = controller.list(2, 1)

    then:
    [first, second]*.total() == [2, 2]
    first.items()*.name() == ['configured']
    first.items()[0].source() == 'static-agent-config'
    first.items()[0].agents() == [new ArmoryAccountsController.ArmoryAgent('agent-1', true)]
    first.items()[0].lastAssignmentMsg() == 'served by agent agent-1'
    second.items()*.name() == ['team-a']
    second.items()[0].source() == 'clouddriver'
    second.items()[0].zoneId() == 'zone-a'
    second.items()[0].config().get('kubeconfigContents').asText() == '<redacted>'

    and: "Armory's pages start at 1, and hold at most 500 accounts"
    refusal { controller.list(0, 10) }.message == "page: must be 1 or more (Armory's pages start at 1)"
    refusal { controller.list(1, 501) }.message == 'limit: must be between 1 and 500'
  }

  def "one account in Armory's shapes; an account nobody knows is a 404"() {
    given:
    registry.claim(new RecordingMember('agent-1'),
      RecordingMember.claimOf('configured').toBuilder().addNamespaces('web').addNamespaces('api').build())
    controller.create(body([definition('team-a', [namespaces: ['batch']])]))

    expect:
    controller.get('configured').state() == 'ACTIVATING'
    with(controller.agentAccount('configured')) {
      kubeHost() == 'https://10.0.0.1:6443'
      certFingerprint() == 'ab' * 32
      kubeVersion() == 'v1.29.4'
      !dynamic()
      status() == 'ACTIVATING'
    }
    controller.agentAccount('team-a').dynamic()
    controller.namespaces('configured') == ['web', 'api']
    controller.namespaces('team-a') == ['batch']
    refusal { controller.get('nobody') } == [status: 404, message: "no account named 'nobody'"]
  }
}
