package io.spinagent.plugin.accounts

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.config.AgentConfig
import io.spinagent.agent.config.AgentIdentityConfig
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.PrometheusConfig
import io.spinagent.agent.config.ServerConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.plugin.PluginReplica
import io.spinagent.plugin.cache.format.CacheTypes
import io.spinagent.plugin.cache.sql.CatsReader
import io.spinagent.plugin.channel.Kubectl
import io.spinagent.plugin.channel.RealAgentFixture
import io.spinagent.plugin.grpc.session.SessionRegistry
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
 * An agent's accounts as Clouddriver sees them: real agents over the real channel, the plugin as
 * its Spring wiring builds it and starts it, on a real MariaDB, and Clouddriver's account storage
 * on a table shaped like Clouddriver's, read through Clouddriver's own AccountDefinitionMapper.
 */
class AccountLifecycleSpec extends Specification {

  @Shared
  @AutoCleanup
  EmbeddedDatabase db = EmbeddedMariaDb.launch()

  @TempDir
  Path dir

  @AutoCleanup
  KubernetesApiServer clusterA = KubernetesApiServer.builder().start()

  @AutoCleanup
  KubernetesApiServer clusterB = KubernetesApiServer.builder().start()

  Map<String, Object> settings = [
    'spinagent.accounts.grace-period'            : '2s',
    'spinagent.accounts.definition-retry-backoff': '100ms']
  DSLContext jooq
  SqlAccountDefinitionRepository repository
  PluginReplica plugin
  /** More replicas on the same database, for features that need them. */
  List<PluginReplica> others = []
  List<AgentRuntime> agents = []
  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)

  def setupSpec() {
    CatsTemplateTables.create(db)
  }

  def setup() {
    jooq = DSL.using(db.dataSource(), SQLDialect.MYSQL)
    repository = AccountStorageFixture.emptyStorage(db.dataSource(), jooq)
    startPlugin()
  }

  def cleanup() {
    agents*.close()
    others*.close()
    plugin?.close()
  }

  def "an agent's account becomes a Clouddriver account reached through the tunnel, and goes after the grace period"() {
    when:
    def agent = startAgent('agent-1', clusterA, 'prod')

    then: 'the account is ACTIVE and Clouddriver has a definition that never polls and points at the tunnel'
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert definition('prod') != null
    }
    def stored = definition('prod')
    stored.cacheThreads == 0
    stored.checkPermissionsOnStartup == false
    stored.kinds == ['Deployment.apps']
    stored.kubeconfigContents.contains('/clusters/prod')
    !stored.kubeconfigContents.contains(clusterA.url())
    table.find('prod').get().clouddriverDefinition
    table.find('prod').get().cachingAgent == 'agent-1'

    and: "kubectl with Clouddriver's kubeconfig reaches the cluster through the agent"
    clusterA.createObject(deployment('frontend'))
    def kubeconfig = Files.writeString(dir.resolve('clouddriver.yaml'), stored.kubeconfigContents)
    def got = kubectl(kubeconfig, 'get', 'deployment', 'frontend', '-n', 'default', '-o', 'name')
    got.exit == 0
    got.out.trim() == 'deployment.apps/frontend'

    when: 'the agent goes away'
    agent.close()

    then: 'the account waits, orphaned, with its definition'
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ORPHANED }
    definition('prod') != null

    and: 'after the grace period both are gone'
    eventually.eventually {
      assert registry.find('prod').isEmpty()
      assert definition('prod') == null
      assert table.find('prod').get().state() == AccountState.REMOVED
    }
  }

  def "a state heard after a later one was applied is skipped: the definition follows the later state"() {
    given: 'prod is ACTIVE with its definition'
    startAgent('agent-1', clusterA, 'prod', 'dev')
    eventually.eventually {
      assert ['prod', 'dev'].every { registry.find(it).get().state() == AccountState.ACTIVE && definition(it) != null }
    }
    def active = registry.find('prod').get()
    def bridge = plugin.bean(ClouddriverAccountBridge)

    when: 'prod is switched off, and its definition removed'
    dynamic.setActive('prod', false)
    eventually.eventually { assert definition('prod') == null }

    and: 'the ACTIVE state it left is heard again, late (as from another thread), then a change of dev is'
    bridge.onStateChange(active, AccountState.ACTIVATING)
    dynamic.setActive('dev', false)

    then: "dev's change, applied after the late one on the bridge's one thread, shows the late one was handled"
    eventually.eventually { assert definition('dev') == null }

    and: 'prod stays without a definition'
    definition('prod') == null
    !table.find('prod').get().clouddriverDefinition
  }

  def "a definition write the database fails is retried when recording the failure fails too"() {
    given: 'prod is ACTIVE, and another writer has deleted its definition'
    startAgent('agent-1', clusterA, 'prod')
    eventually.eventually { assert definition('prod') != null }
    repository.delete('prod')
    def bridge = plugin.bean(ClouddriverAccountBridge)

    when: 'the bridge is to write it while the database is down (so spinagent_accounts cannot take the failure either)'
    db.stop()
    bridge.onStateChange(registry.find('prod').get(), AccountState.ACTIVATING)

    then: "the account's last error says so meanwhile"
    eventually.eventually {
      assert registry.find('prod').get().lastError()?.startsWith("cannot update Clouddriver's account definition")
    }

    when:
    db.start()

    then: 'a retry writes it once the database is back'
    eventually.eventually { assert definition('prod')?.cacheThreads == 0 }

    cleanup:
    db.start()
  }

  def "a name another cluster holds is refused, and a Clouddriver account SpinAgent did not write is left alone"() {
    given: 'an account Clouddriver manages itself'
    repository.create(new KubernetesAccountDefinition(name: 'legacy', kubeconfigContents: 'theirs', cacheThreads: 2))

    when:
    startAgent('agent-1', clusterA, 'prod', 'legacy')

    then: 'legacy is FAILED with a reason that says what to do, and its definition is untouched'
    eventually.eventually {
      def legacy = registry.find('legacy').get()
      assert legacy.state() == AccountState.FAILED
      assert legacy.lastError().contains('/spinagent/accounts/migrate')
      assert registry.find('prod').get().state() == AccountState.ACTIVE
    }
    definition('legacy').kubeconfigContents == 'theirs'
    definition('legacy').cacheThreads == 2
    !table.find('legacy').get().clouddriverDefinition

    when: 'an agent of another cluster claims prod'
    startAgent('agent-2', clusterB, 'prod')
    Thread.sleep(500) // give a wrong acceptance the chance to show

    then: 'it is refused: prod stays with agent-1 and cluster A'
    eventually.eventually { assert sessions.find('agent-2').isPresent() }
    registry.find('prod').get().cachingAgentId() == 'agent-1'
    registry.find('prod').get().standbyAgentIds().isEmpty()
    !sessions.find('agent-2').get().accounts().contains('prod')
  }

  def "INACTIVE takes the account out of Clouddriver and stops its stream; ACTIVE brings both back"() {
    given:
    startAgent('agent-1', clusterA, 'prod')
    eventually.eventually { assert definition('prod') != null }

    when:
    dynamic.setActive('prod', false)

    then:
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.INACTIVE
      assert definition('prod') == null
      assert table.find('prod').get().inactive()
    }

    when: 'the cluster changes while the account is off'
    clusterA.createObject(deployment('while-off'))
    Thread.sleep(1000)

    then: 'nothing is streamed'
    !deployments('prod').contains('while-off')

    when:
    dynamic.setActive('prod', true)

    then: 'the same agent streams it again, from a complete listing, and Clouddriver has it back'
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert definition('prod') != null
      assert deployments('prod').contains('while-off')
      assert !table.find('prod').get().inactive()
    }
  }

  def "a migrated account switched off before its agent serves it loses its original definition"() {
    given: "Clouddriver's own account, migrated to agent-1, then switched off before the agent came"
    migratedToAgent1('legacy', 'theirs')
    dynamic.setActive('legacy', false)

    when: 'the agent claims it'
    startAgent('agent-1', clusterA, 'prod', 'legacy')

    then: 'it stays off, and Clouddriver no longer reaches the cluster through the original definition'
    eventually.eventually {
      assert registry.find('legacy').get().state() == AccountState.INACTIVE
      assert definition('legacy') == null
    }
  }

  def "a definition of SpinAgent's saved again after its account was switched off is removed by the next check; another writer's is left alone"() {
    given: 'prod, dev and the migrated legacy served by agent-1, then switched off and out of Clouddriver'
    migratedToAgent1('legacy', 'original')
    startAgent('agent-1', clusterA, 'prod', 'dev', 'legacy')
    eventually.eventually { assert ['prod', 'dev', 'legacy'].every { definition(it)?.cacheThreads == 0 } }
    def tunnel = definition('prod')
    ['prod', 'dev', 'legacy'].each { dynamic.setActive(it, false) }
    eventually.eventually { assert ['prod', 'dev', 'legacy'].every { definition(it) == null } }
    def bridge = plugin.bean(ClouddriverAccountBridge)

    when: "prod's tunnel definition and legacy's original are saved again (as by a PUT /credentials that read them before the switch), dev gets another writer's"
    repository.create(tunnel)
    repository.create(new KubernetesAccountDefinition(name: 'legacy', kubeconfigContents: 'original'))
    repository.create(new KubernetesAccountDefinition(name: 'dev', kubeconfigContents: 'theirs'))
    bridge.checkDefinitions()

    then: "SpinAgent's are removed, counted; the other writer's stays"
    definition('prod') == null
    definition('legacy') == null
    plugin.counted('spinagent.accounts.definitions.repaired', 'change', 'written-while-inactive') == 2
    definition('dev').kubeconfigContents == 'theirs'
    ['prod', 'dev', 'legacy'].every { registry.find(it).get().state() == AccountState.INACTIVE }

    when: 'prod is switched on again'
    dynamic.setActive('prod', true)

    then: 'its definition is written as usual'
    eventually.eventually { assert definition('prod')?.cacheThreads == 0 }
  }

  def "a deleted dynamic account cannot be switched on or off: 404 says it was deleted"() {
    given:
    table.insertDynamic(new ObjectMapper().convertValue(
        [name: 'gone', agentId: 'agent-1', kubeconfigContents: 'apiVersion: v1'], DynamicAccountSpec), AccountSource.API)
    table.markRemoved('gone')

    when:
    dynamic.setActive('gone', true)

    then:
    def e = thrown(AccountRequestException)
    e.problem() == AccountRequestException.Problem.NOT_FOUND
    e.message == "account 'gone' was deleted; create it again to use it"
    !table.find('gone').get().inactive()
  }

  def "a restarted replica keeps its accounts, and an INACTIVE account stays off"() {
    given:
    def agent = startAgent('agent-1', clusterA, 'prod', 'staging')
    eventually.eventually { assert definition('prod') != null && definition('staging') != null }
    dynamic.setActive('staging', false)
    eventually.eventually { assert definition('staging') == null }

    when: 'the plugin restarts while the agent is away'
    agent.close()
    plugin.close()
    settings['spinagent.accounts.grace-period'] = '1m'
    startPlugin()

    then: 'prod waits for its agent, staging is still switched off'
    registry.find('prod').get().state() == AccountState.ORPHANED
    registry.isInactive('staging')

    when: 'the agent returns'
    startAgent('agent-1', clusterA, 'prod', 'staging')

    then:
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert registry.find('staging').get().state() == AccountState.INACTIVE
      assert definition('prod') != null
    }
    definition('staging') == null
  }

  def "an agent of another principal is refused an account on every replica, and does not get it when the account's agent leaves"() {
    given: 'two replicas on one database, and agents of two teams with their own tokens'
    restartWithTeamTokens()
    def replicaB = startReplica()
    def rightful = startAgent('agent-a', clusterA, 'prod', token: 'a-token')
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ACTIVE }

    expect: 'the account is bound to the principal that registered it, in the shared table'
    table.find('prod').get().boundPrincipal() == 'token:team-a'

    when: "team B's agent, reporting prod's cluster, connects to the other replica"
    startAgent('agent-b', clusterA, 'prod', token: 'b-token', replica: replicaB)

    then: 'that replica refuses it the account'
    eventually.eventually { assert refusedClaims(replicaB) == 1 }
    !replicaB.bean(SessionRegistry).find('agent-b').get().accounts().contains('prod')
    replicaB.accounts().find('prod').isEmpty()

    when: "the account's agent goes away"
    rightful.close()

    then: 'the account waits for it, orphaned, and nobody streams it'
    eventually.eventually { assert table.find('prod').get().state() == AccountState.ORPHANED }
    table.find('prod').get().cachingAgent() == null
    replicaB.accounts().find('prod').isEmpty()
  }

  def "an agent that reconnects to another replica leaves no ORPHANED account on the replica it left"() {
    given: 'two replicas on one database, with a grace period far longer than the feature'
    plugin.close()
    settings['spinagent.accounts.grace-period'] = '10m'
    startPlugin()
    def replicaB = startReplica()
    def agent = startAgent('agent-1', clusterA, 'prod')
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ACTIVE }

    when: 'the agent reconnects to the other replica (found by the fault soak: the replica it left said ORPHANED for the whole grace period)'
    agent.close()
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ORPHANED }
    startAgent('agent-1', clusterA, 'prod', replica: replicaB)

    then: 'the other replica serves it, and the one it left forgets it at its next sweep, without removing it from Clouddriver'
    eventually.eventually {
      assert replicaB.accounts().find('prod').get().state() == AccountState.ACTIVE
      assert registry.find('prod').isEmpty()
    }
    table.find('prod').get().state() == AccountState.ACTIVE
    definition('prod') != null
  }

  def "a restarted replica holds accounts to their principals, and deleting an account ends its binding"() {
    given:
    restartWithTeamTokens()
    def rightful = startAgent('agent-a', clusterA, 'prod', token: 'a-token')
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ACTIVE }

    when: "the replica restarts while the agent is away, and team B's agent connects first"
    rightful.close()
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ORPHANED }
    plugin.close()
    settings['spinagent.accounts.grace-period'] = '1m'
    startPlugin()
    def impostor = startAgent('agent-b', clusterA, 'prod', token: 'b-token')

    then: 'it is refused: prod waits, orphaned, for its own agent'
    eventually.eventually { assert refusedClaims(plugin) == 1 }
    registry.find('prod').get().state() == AccountState.ORPHANED
    registry.find('prod').get().agentIds().isEmpty()

    when: "team A's agent returns"
    startAgent('agent-a', clusterA, 'prod', token: 'a-token')

    then:
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert registry.find('prod').get().cachingAgentId() == 'agent-a'
    }

    when: 'its agents gone, an operator deletes the account'
    agents*.close()
    eventually.eventually { assert registry.find('prod').get().state() == AccountState.ORPHANED }
    dynamic.delete('prod')

    then: 'it is bound to nobody'
    table.find('prod').get().boundPrincipal() == null

    when: "team B's agent claims the name"
    startAgent('agent-b2', clusterA, 'prod', token: 'b-token')

    then: 'the account is its own now'
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert registry.find('prod').get().cachingAgentId() == 'agent-b2'
    }
    table.find('prod').get().boundPrincipal() == 'token:team-b'
  }

  def "without Clouddriver's account storage the plugin says at start-up what to configure, and still serves the cache"() {
    given:
    def appender = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>()
    def logger = org.slf4j.LoggerFactory.getLogger(ClouddriverAccountBridge) as ch.qos.logback.classic.Logger
    appender.start()
    logger.addAppender(appender)
    plugin.close()

    when:
    startPlugin(false)

    then:
    def warning = appender.list*.formattedMessage.find { it.contains('account storage is off') }
    warning != null
    ['account.storage.enabled: true', 'account.storage.kubernetes.enabled: true', 'credentials.poller.enabled: true',
     'spinagent.accounts.clouddriver-definitions: false'].every { warning.contains(it) }

    when:
    clusterA.createObject(deployment('frontend'))
    startAgent('agent-1', clusterA, 'prod')

    then: 'the account is served and cached, without a Clouddriver definition'
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert deployments('prod').contains('frontend')
    }
    definition('prod') == null

    cleanup:
    logger.detachAppender(appender)
  }

  private void startPlugin(boolean accountStorage = true) {
    Map<String, Object> clouddriver = accountStorage
      ? [accountDefinitionRepository: repository, accountDefinitionMapper: repository.definitionMapper()]
      : [:]
    plugin = new PluginReplica(jooq, settings, clouddriver)
  }

  /** Another replica on the same database, closed with the feature. */
  private PluginReplica startReplica() {
    def replica = new PluginReplica(jooq, settings,
      [accountDefinitionRepository: repository, accountDefinitionMapper: repository.definitionMapper()])
    others << replica
    replica
  }

  /** The plugin again, now admitting agents by named tokens of two teams. */
  private void restartWithTeamTokens() {
    plugin.close()
    settings['spinagent.grpc.auth.tokens.values[0]'] = 'team-a a-token'
    settings['spinagent.grpc.auth.tokens.values[1]'] = 'team-b b-token'
    startPlugin()
  }

  private static double refusedClaims(PluginReplica replica) {
    replica.meters.find('spinagent.accounts.claims.refused').tag('reason', 'principal').functionCounter()?.count() ?: 0
  }

  private AccountRegistry getRegistry() {
    plugin.accounts()
  }

  private AccountTable getTable() {
    plugin.bean(AccountTable)
  }

  private DynamicAccounts getDynamic() {
    plugin.bean(DynamicAccounts)
  }

  private SessionRegistry getSessions() {
    plugin.bean(SessionRegistry)
  }

  /** The names of the account's Deployments in Clouddriver's cache, read as Clouddriver reads it. */
  private Set<String> deployments(String account) {
    new CatsReader(jooq).all(CacheTypes.DEPLOYMENT).keySet()
      .findAll { it.split(':')[3] == account }
      .collect { it.split(':').last() } as Set
  }

  /**
   * A real agent serving {@code accountNames} of {@code cluster}; options: {@code token} it
   * presents, {@code replica} it connects to (the plugin by default).
   */
  private AgentRuntime startAgent(Map options = [:], String id, KubernetesApiServer cluster, String... accountNames) {
    PluginReplica replica = options.replica ?: plugin
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve("$id-${cluster.port()}.yaml"))
    def accounts = accountNames.collect { name ->
      new KubernetesAccountConfig(name, Optional.of(kubeconfig), false, Optional.empty(), [], [], ['Deployment'], [],
        false, false, io.spinagent.agent.config.AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
    }
    def config = new AgentConfig(new AgentIdentityConfig(id, Optional.empty()),
      RealAgentFixture.agentConfig(replica.grpcPort(), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.ofNullable(options.token as String), Optional.empty())),
      new KubernetesConfig(accounts), new ServerConfig(freePort()), new PrometheusConfig(false, 8008),
      LoggingConfig.DEFAULT, new TasksConfig(1000, 50), 30)
    def file = Files.writeString(dir.resolve("${id}.yaml"), 'written by the spec\n')
    def agent = AgentRuntime.start(file, config, new ConfigLoader({ id }))
    agents << agent
    agent
  }

  /** Clouddriver's own account {@code name}, with its kubeconfig, migrated to agent-1. */
  private void migratedToAgent1(String name, String kubeconfigContents) {
    repository.create(new KubernetesAccountDefinition(name: name, kubeconfigContents: kubeconfigContents))
    table.insertDynamic(new ObjectMapper().convertValue(
        [name: name, agentId: 'agent-1', kubeconfigContents: 'apiVersion: v1'], DynamicAccountSpec),
        AccountSource.MIGRATED)
  }

  private KubernetesAccountDefinition definition(String name) {
    repository.getByName(name) as KubernetesAccountDefinition
  }

  private static String deployment(String name) {
    """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: $name, namespace: default, labels: {app: shop}}
    spec:
      replicas: 1
      selector: {matchLabels: {app: shop}}
      template:
        metadata: {labels: {app: shop}}
        spec: {containers: [{name: web, image: 'nginx:1.27'}]}
    """.stripIndent()
  }

  private static Map kubectl(Path kubeconfig, String... args) {
    Kubectl.run(kubeconfig, null, args)
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
