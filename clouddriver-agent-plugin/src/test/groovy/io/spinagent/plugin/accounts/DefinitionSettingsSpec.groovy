package io.spinagent.plugin.accounts

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.config.AgentConfig
import io.spinagent.agent.config.AgentIdentityConfig
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.CustomResourceConfig
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.PrometheusConfig
import io.spinagent.agent.config.ServerConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.plugin.PluginReplica
import io.spinagent.plugin.cache.format.CacheKeys
import io.spinagent.plugin.cache.sql.CatsReader
import io.spinagent.plugin.channel.RealAgentFixture
import io.spinagent.plugin.web.AccountsController
import io.spinagent.plugin.web.ArmoryAccountsController
import io.spinagent.testkit.clouddriver.CustomKubernetesResource
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * Issue 36: an account's {@code metrics} and {@code customResources} reach the definition the
 * plugin writes into Clouddriver's account storage, whether the account is in an agent's
 * configuration or created through the REST APIs (SpinAgent's, Armory's) or migrated; and the
 * custom resources' kinds are watched. Real agents over the real channel, the plugin as its Spring
 * wiring builds it, on MariaDB, with Clouddriver's account storage on a table shaped like
 * Clouddriver's, read through a stand-in of its definition type that refuses unknown fields.
 */
class DefinitionSettingsSpec extends Specification {

  static final String ROLLOUTS = crd('argoproj.io', 'Rollout', 'rollouts', 'Namespaced')
  static final String HTTP_PROXIES = crd('projectcontour.io', 'HTTPProxy', 'httpproxies', 'Namespaced')

  @Shared
  @AutoCleanup
  EmbeddedDatabase db = EmbeddedMariaDb.launch()

  @TempDir
  Path dir

  @AutoCleanup
  KubernetesApiServer cluster = KubernetesApiServer.builder().start()

  DSLContext jooq
  SqlAccountDefinitionRepository repository
  PluginReplica plugin
  List<AgentRuntime> agents = []
  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)

  def setupSpec() {
    CatsTemplateTables.create(db)
  }

  def setup() {
    jooq = DSL.using(db.dataSource(), SQLDialect.MYSQL)
    repository = AccountStorageFixture.emptyStorage(db.dataSource(), jooq)
    plugin = new PluginReplica(jooq, [
        'spinagent.accounts.definition-retry-backoff': '100ms',
        'spinagent.cache.kinds'                      : 'Deployment,Rollout.argoproj.io'],
        [accountDefinitionRepository: repository, accountDefinitionMapper: repository.definitionMapper()])
    cluster.createObject(ROLLOUTS)
    cluster.createObject(HTTP_PROXIES)
  }

  def cleanup() {
    agents*.close()
    plugin?.close()
  }

  def "an agent account's metrics becomes its definition's: true, false, or left out for Clouddriver's default"() {
    when:
    startAgent('agent-1', account('on', metrics: true), account('off', metrics: false), account('unset'))

    then:
    eventually.eventually { assert ['on', 'off', 'unset'].every { definition(it) != null } }
    definition('on').metrics == true
    definition('off').metrics == false
    definition('unset').metrics == null
    !storedJson('unset').contains('"metrics"')
  }

  def "an agent account's custom resources become its definition's customResources, their kinds watched and, as spinagent.cache.kinds says, cached"() {
    given:
    cluster.createObject(rollout('canary'))
    cluster.createObject(httpProxy('shop'))

    when: 'an account of Deployments and two custom resources, one of them with every setting'
    startAgent('agent-1', account('prod', kinds: ['Deployment'], customResources: [
        new CustomResourceConfig('Rollout.argoproj.io', Optional.of('serverGroups'), Optional.of('WORKLOAD_CONTROLLER_PRIORITY'),
            Optional.of(true), Optional.of(true)),
        new CustomResourceConfig('HTTPProxy.projectcontour.io', Optional.of('loadBalancers'), Optional.empty(),
            Optional.empty(), Optional.empty())]))

    then: "Clouddriver's definition carries them, Clouddriver's defaults for what was left out"
    eventually.eventually { assert definition('prod') != null }
    def resources = definition('prod').customResources
    resources*.kubernetesKind == ['Rollout.argoproj.io', 'HTTPProxy.projectcontour.io']
    resources*.spinnakerKind == ['serverGroups', 'loadBalancers']
    resources*.deployPriority == ['WORKLOAD_CONTROLLER_PRIORITY', '100']
    resources*.versioned == [true, false]
    resources*.namespaced == [true, true]

    and: 'their kinds are watched with the Deployments'
    definition('prod').kinds as Set == ['Deployment.apps', 'Rollout.argoproj.io', 'HTTPProxy.projectcontour.io'] as Set

    and: 'the Rollout is cached, spinagent.cache.kinds naming it; the HTTPProxy is not'
    eventually.eventually {
      assert new CatsReader(jooq).get('Rollout.argoproj.io',
          CacheKeys.infrastructure('Rollout.argoproj.io', 'prod', 'default', 'canary')) != null
    }
    new CatsReader(jooq).all('HTTPProxy.projectcontour.io').isEmpty()
  }

  def "a dynamic account's metrics and customResources (POST and PUT /spinagent/accounts) reach its definition"() {
    given:
    startAgent('agent-1')

    when:
    def created = accounts().create(body([name: 'dyn', agentId: 'agent-1', kubeconfigContents: kubeconfigText(),
        kinds: ['Deployment'], metrics: false,
        customResources: [[kubernetesKind: 'Rollout.argoproj.io', spinnakerKind: 'ServerGroups', deployPriority: 100]]]))

    then: 'stored as sent, with the Spinnaker kind in Clouddriver\'s spelling in the definition'
    created.statusCode.value() == 201
    created.body.path('definition').path('metrics').isBoolean()
    !created.body.path('definition').path('metrics').asBoolean()
    eventually.eventually { assert definition('dyn')?.kinds?.contains('Rollout.argoproj.io') }
    definition('dyn').metrics == false
    definition('dyn').customResources*.kubernetesKind == ['Rollout.argoproj.io']
    definition('dyn').customResources*.spinnakerKind == ['serverGroups']
    definition('dyn').customResources*.deployPriority == ['100']

    when: 'a new definition without either'
    def changed = accounts().update('dyn', body([agentId: 'agent-1', kubeconfigContents: kubeconfigText(), kinds: ['Deployment']]))

    then: "the definition leaves both to Clouddriver's defaults, and the Rollouts are no longer watched"
    changed.statusCode.value() == 200
    eventually.eventually {
      def definition = definition('dyn')
      assert definition.metrics == null && definition.customResources == null
      assert definition.kinds == ['Deployment.apps']
    }
  }

  def "Armory's customResourceDefinitions and metrics in POST /armory/accounts/dynamic reach the definition in Clouddriver's form"() {
    given:
    startAgent('agent-1')

    when:
    def created = armory().create(body([[name: 'armory-dyn', agentId: 'agent-1', kubeconfigContents: kubeconfigText(),
        metrics: true, customResourceDefinitions: [[kind: 'Rollout.argoproj.io', scope: 'Namespaced', spinnakerKind: 'serverGroups']]]]))

    then:
    created.statusCode.value() == 200
    created.body.accounts()*.status() == [201]
    eventually.eventually { assert definition('armory-dyn') != null }
    definition('armory-dyn').metrics == true
    definition('armory-dyn').customResources.collect { [it.kubernetesKind, it.spinnakerKind, it.namespaced] } ==
        [['Rollout.argoproj.io', 'serverGroups', true]]
  }

  def "a migrated Clouddriver account keeps its metrics and customResources in the tunnel definition that replaces its own"() {
    given:
    startAgent('agent-1')
    repository.create(new KubernetesAccountDefinition(name: 'legacy', kubeconfigContents: kubeconfigText(), cacheThreads: 2,
        metrics: false, customResources: [new CustomKubernetesResource(kubernetesKind: 'Rollout.argoproj.io', spinnakerKind: 'serverGroups')]))

    when:
    def migrated = accounts().migrate(body([accounts: ['legacy'], agentId: 'agent-1']))

    then:
    migrated.statusCode.value() == 200
    eventually.eventually { assert definition('legacy').kubeconfigContents.contains('/clusters/legacy') }
    definition('legacy').cacheThreads == 0
    definition('legacy').metrics == false
    definition('legacy').customResources.collect { [it.kubernetesKind, it.spinnakerKind, it.deployPriority, it.versioned, it.namespaced] } ==
        [['Rollout.argoproj.io', 'serverGroups', '100', false, true]]
  }

  def "the definition check takes a dynamic account's metrics and customResources for SpinAgent's, and writes them again when changed outside it"() {
    given: 'a dynamic account with both, its definition written'
    startAgent('agent-1')
    accounts().create(body([name: 'dyn', agentId: 'agent-1', kubeconfigContents: kubeconfigText(), metrics: false,
        customResources: [[kubernetesKind: 'Rollout.argoproj.io', spinnakerKind: 'serverGroups']]]))
    eventually.eventually { assert definition('dyn')?.customResources*.kubernetesKind == ['Rollout.argoproj.io'] }
    def bridge = plugin.bean(ClouddriverAccountBridge)

    when: 'the check runs on the definition as SpinAgent wrote it'
    bridge.checkDefinitions()

    then: 'nothing differs, nothing is written again'
    plugin.counted('spinagent.accounts.definitions.repaired', 'change', 'changed') == 0

    when: 'the definition is changed in Clouddriver\'s account storage, and the check runs'
    def edited = definition('dyn')
    edited.metrics = true
    edited.customResources = []
    repository.update(edited)
    bridge.checkDefinitions()

    then: "SpinAgent's definition is back, with the account's metrics and custom resources"
    plugin.counted('spinagent.accounts.definitions.repaired', 'change', 'changed') == 1
    definition('dyn').metrics == false
    definition('dyn').customResources.collect { [it.kubernetesKind, it.spinnakerKind] } == [['Rollout.argoproj.io', 'serverGroups']]
  }

  def "custom resources Clouddriver would misread, or could not load the account with, are refused naming the field: #why"() {
    given:
    startAgent('agent-1')

    when:
    def answer = accounts().create(body([name: 'bad', agentId: 'agent-1', serviceAccount: true, customResources: resources]))

    then:
    answer.statusCode.value() == 400
    answer.body.path('message').asText() == message
    plugin.bean(AccountTable).find('bad').isEmpty()

    where:
    why                     | resources                                                                    || message
    'a Spinnaker kind typo' | [[kubernetesKind: 'Rollout.argoproj.io', spinnakerKind: 'rollouts']]         || "customResources[0].spinnakerKind: 'rollouts' is not one of Clouddriver's Spinnaker kinds [instances, configs, serverGroups, loadBalancers, securityGroups, serverGroupManagers, unclassified]"
    'no kind'               | [[spinnakerKind: 'serverGroups']]                                            || 'customResources[0].kubernetesKind: required, the kind as Kind.group, e.g. Rollout.argoproj.io'
    'not a kind'            | [[kubernetesKind: 'Rollout argoproj']]                                       || "customResources[0].kubernetesKind: 'Rollout argoproj' is not a kind: write Kind.group, e.g. Rollout.argoproj.io"
    'a bad deploy priority' | [[kubernetesKind: 'Rollout.argoproj.io', deployPriority: 'high']]            || "customResources[0].deployPriority: 'high' is neither a whole number nor one of Clouddriver's priority names, e.g. WORKLOAD_CONTROLLER_PRIORITY"
    'a kind twice'          | [[kubernetesKind: 'Rollout.argoproj.io'], [kubernetesKind: 'rollout.argoproj.io']] || 'customResources[1].kubernetesKind: rollout.argoproj.io is declared more than once; Clouddriver cannot load an account that declares a kind twice'
    'a null item'           | [null]                                                                       || 'customResources[0]: a custom resource (an object) is required, not null'
    'an unknown field'      | [[kubernetesKind: 'Rollout.argoproj.io', kind: 'Rollout']]                   || 'customResources[0].kind: unknown field (known: [deployPriority, kubernetesKind, namespaced, spinnakerKind, versioned])'
  }

  def "Armory's form that cannot be read as custom resources is refused as a whole, naming the element and field: #why"() {
    given:
    startAgent('agent-1')

    when:
    armory().create(body([[name: 'bad', agentId: 'agent-1', serviceAccount: true, customResourceDefinitions: resources]]))

    then:
    AccountRequestException e = thrown()
    e.problem() == AccountRequestException.Problem.INVALID
    e.message == message
    plugin.bean(AccountTable).find('bad').isEmpty()

    where:
    why              | resources                                           || message
    'a scope typo'   | [[kind: 'Rollout.argoproj.io', scope: 'Global']]    || '[0].customResourceDefinitions[0].scope: Namespaced or Cluster, not "Global"'
    'no kind'        | [[scope: 'Namespaced']]                             || '[0].customResourceDefinitions[0].kind: required, the kind as Kind.group'
    'an unknown key' | [[kind: 'Rollout.argoproj.io', group: 'argoproj']]  || '[0].customResourceDefinitions[0].group: unknown field (known: [kind, scope, spinnakerKind, deployPriority, versioned])'
  }

  // ------------------------------------------------------------------ helpers

  private AccountsController accounts() {
    plugin.bean(AccountsController)
  }

  private ArmoryAccountsController armory() {
    plugin.bean(ArmoryAccountsController)
  }

  private static InputStream body(Object json) {
    new ByteArrayInputStream(new ObjectMapper().writeValueAsBytes(json))
  }

  private String kubeconfigText() {
    cluster.kubeconfig().toYaml()
  }

  private KubernetesAccountDefinition definition(String name) {
    repository.getByName(name) as KubernetesAccountDefinition
  }

  /** The definition's JSON as Clouddriver's accounts table holds it. */
  private String storedJson(String name) {
    jooq.fetchOne('select body from accounts where id = ?', name).get(0, String)
  }

  /** An account of the spec's cluster; options: metrics, kinds, customResources. */
  private KubernetesAccountConfig account(Map options = [:], String name) {
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve("${name}.yaml"))
    new KubernetesAccountConfig(name, Optional.of(kubeconfig), Optional.empty(), false, Optional.empty(), false,
        [], [], (options.kinds ?: ['Deployment']) as List<String>, [], false, false,
        io.spinagent.agent.config.AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5), false,
        Optional.ofNullable(options.metrics as Boolean), (options.customResources ?: []) as List<CustomResourceConfig>)
  }

  private AgentRuntime startAgent(String id, KubernetesAccountConfig... accounts) {
    def config = new AgentConfig(new AgentIdentityConfig(id, Optional.empty()),
        RealAgentFixture.agentConfig(plugin.grpcPort(), true,
            new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
            new AuthConfig(Optional.empty(), Optional.empty())),
        new KubernetesConfig(accounts as List), new ServerConfig(freePort()), new PrometheusConfig(false, 8008),
        LoggingConfig.DEFAULT, new TasksConfig(1000, 50), 30)
    def file = Files.writeString(dir.resolve("${id}.yaml"), 'written by the spec\n')
    def agent = AgentRuntime.start(file, config, new ConfigLoader({ id }))
    agents << agent
    eventually.eventually { assert plugin.bean(io.spinagent.plugin.grpc.session.SessionRegistry).find(id).isPresent() }
    agent
  }

  static String crd(String group, String kind, String plural, String scope) {
    """{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"$plural.$group"},
      "spec":{"group":"$group","scope":"$scope","names":{"plural":"$plural","singular":"${kind.toLowerCase()}","kind":"$kind"},
        "versions":[{"name":"v1alpha1","served":true,"storage":true,
          "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}"""
  }

  static String rollout(String name) {
    """{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","metadata":{"name":"$name","namespace":"default"},"spec":{"replicas":2}}"""
  }

  static String httpProxy(String name) {
    """{"apiVersion":"projectcontour.io/v1alpha1","kind":"HTTPProxy","metadata":{"name":"$name","namespace":"default"},"spec":{}}"""
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
