package io.spinagent.plugin.accounts

import io.spinagent.plugin.channel.Kubectl

import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.config.AgentConfig
import io.spinagent.agent.config.AgentIdentityConfig
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.ConfigLoader
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.LoggingConfig
import io.spinagent.agent.config.PrometheusConfig
import io.spinagent.agent.config.ServerConfig
import io.spinagent.agent.config.TasksConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.plugin.cache.InMemoryObjectStore
import io.spinagent.plugin.channel.RealAgentFixture
import io.spinagent.plugin.config.AccountsConfiguration
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.grpc.AgentChannel
import io.spinagent.plugin.identity.ReplicaIdentity
import io.spinagent.plugin.grpc.session.SessionRegistry
import io.spinagent.plugin.tunnel.OperationsProperties
import io.spinagent.plugin.tunnel.TunnelProperties
import io.spinagent.plugin.tunnel.TunnelServerLifecycle
import io.spinagent.plugin.tunnel.TunnelTokens
import io.spinagent.plugin.tunnel.TunnelKubeconfigs
import io.spinagent.plugin.tunnel.TunnelOperationListener
import io.spinagent.plugin.tunnel.TunnelAuthority
import io.spinagent.plugin.ha.HighAvailability
import io.spinagent.testkit.db.AccountsTable
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository
import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import io.spinagent.plugin.accounts.AccountTable
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.springframework.beans.factory.support.StaticListableBeanFactory
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit

/**
 * An agent's accounts as Clouddriver sees them: real agents over the real channel, the plugin's
 * account wiring as its Spring configuration builds it, and Clouddriver's account storage on a real
 * MariaDB table shaped like Clouddriver's, read through Clouddriver's own AccountDefinitionMapper.
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

  SpinAgentProperties properties = new SpinAgentProperties()
  InMemoryObjectStore store = new InMemoryObjectStore()
  SessionRegistry sessions = new SessionRegistry()
  SqlAccountDefinitionRepository repository
  AccountTable table
  AccountRegistry registry
  DynamicAccounts dynamic
  ScheduledExecutorService worker
  TunnelServerLifecycle tunnel
  List<AgentRuntime> agents = []
  List<AgentChannel> channels = []
  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)

  def setup() {
    def sql = db.dataSource()
    // Each feature starts from an empty database, as a new Clouddriver installation would.
    def jooq = DSL.using(sql, SQLDialect.MYSQL)
    def ours = jooq.fetch("select table_name from information_schema.tables where table_schema = database()"
        + " and (table_name like 'spinagent%' or table_name like 'accounts%')").collect { it.get(0, String) }
    ours.each { jooq.execute("drop table $it") }
    AccountsTable.create(sql, false)
    repository = new SqlAccountDefinitionRepository(sql, false)
    properties.grpc.address = '127.0.0.1'
    properties.grpc.port = 0
    properties.accounts.gracePeriod = Duration.ofSeconds(2)
    properties.accounts.definitionRetryBackoff = Duration.ofMillis(100)
    startPlugin()
  }

  def cleanup() {
    agents*.close()
    channels*.close()
    tunnel?.stop()
    worker?.shutdownNow()
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
    !store.objects('prod').keySet()*.name().contains('while-off')

    when:
    dynamic.setActive('prod', true)

    then: 'the same agent streams it again, from a complete listing, and Clouddriver has it back'
    eventually.eventually {
      assert registry.find('prod').get().state() == AccountState.ACTIVE
      assert definition('prod') != null
      assert store.objects('prod').keySet()*.name().contains('while-off')
      assert !table.find('prod').get().inactive()
    }
  }

  def "a restarted replica keeps its accounts, and an INACTIVE account stays off"() {
    given:
    def agent = startAgent('agent-1', clusterA, 'prod', 'staging')
    eventually.eventually { assert definition('prod') != null && definition('staging') != null }
    dynamic.setActive('staging', false)
    eventually.eventually { assert definition('staging') == null }

    when: 'the plugin restarts while the agent is away'
    agent.close()
    stopPlugin()
    properties.accounts.gracePeriod = Duration.ofMinutes(1)
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

  def "without Clouddriver's account storage the plugin says at start-up what to configure, and still serves the cache"() {
    given:
    def appender = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>()
    def logger = org.slf4j.LoggerFactory.getLogger(AccountsConfiguration) as ch.qos.logback.classic.Logger
    appender.start()
    logger.addAppender(appender)

    when:
    def config = new AccountsConfiguration()
    def storage = config.accountStorage(provider(DSL.using(db.dataSource(), SQLDialect.MYSQL)))
    def withoutStorage = config.accountRegistry(properties, [], store, storage, new ReplicaIdentity(), worker,
      new StaticListableBeanFactory().getBeanProvider(AccountDefinitionRepository),
      new StaticListableBeanFactory().getBeanProvider(AccountDefinitionMapper),
      new StaticListableBeanFactory().getBeanProvider(TunnelKubeconfigs))

    then:
    def warning = appender.list*.formattedMessage.find { it.contains('account storage is off') }
    warning != null
    ['account.storage.enabled: true', 'account.storage.kubernetes.enabled: true', 'credentials.poller.enabled: true',
     'spinagent.accounts.clouddriver-definitions: false'].every { warning.contains(it) }
    withoutStorage != null

    cleanup:
    logger.detachAppender(appender)
  }

  private void startPlugin() {
    def config = new AccountsConfiguration()
    def jooq = DSL.using(db.dataSource(), SQLDialect.MYSQL)
    def storage = config.accountStorage(provider(jooq))
    table = storage.table().get()
    worker = config.accountSyncWorker()
    def replica = new ReplicaIdentity()
    def tokens = new TunnelTokens()
    def lifecycle = new Object() { TunnelKubeconfigs value }
    registry = config.accountRegistry(properties, [], store, storage, replica, worker,
      provider(repository, AccountDefinitionRepository), provider(repository.definitionMapper(), AccountDefinitionMapper),
      provider({ -> lifecycle.value } as org.springframework.beans.factory.ObjectFactory))
    tunnel = new TunnelServerLifecycle(new TunnelProperties(port: 0), new OperationsProperties(), tokens,
      TunnelAuthority.generate(), registry, sessions, HighAvailability.off(), new StaticListableBeanFactory().getBeanProvider(TunnelOperationListener))
    tunnel.start()
    lifecycle.value = new TunnelKubeconfigs(tunnel, tokens)
    dynamic = config.dynamicAccounts(registry, sessions, storage, properties,
      provider(repository, AccountDefinitionRepository), provider(repository.definitionMapper(), AccountDefinitionMapper),
      HighAvailability.off())
    channels << AgentChannel.start(properties, replica.id(), registry, dynamic, sessions, store, new SimpleMeterRegistry(),
      java.time.Clock.systemUTC())
  }

  private void stopPlugin() {
    channels*.close()
    channels.clear()
    tunnel.stop()
    worker.shutdown()
    worker.awaitTermination(10, TimeUnit.SECONDS)
    sessions = new SessionRegistry()
  }

  private AgentRuntime startAgent(String id, KubernetesApiServer cluster, String... accountNames) {
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve("$id-${cluster.port()}.yaml"))
    def accounts = accountNames.collect { name ->
      new KubernetesAccountConfig(name, Optional.of(kubeconfig), false, Optional.empty(), [], [], ['Deployment'], [],
        false, false, io.spinagent.agent.config.AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
    }
    def config = new AgentConfig(new AgentIdentityConfig(id, Optional.empty()),
      RealAgentFixture.agentConfig(channels.last().port(), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty())),
      new KubernetesConfig(accounts), new ServerConfig(freePort()), new PrometheusConfig(false, 8008),
      LoggingConfig.DEFAULT, new TasksConfig(1000, 50), 30)
    def file = Files.writeString(dir.resolve("${id}.yaml"), 'written by the spec\n')
    def agent = AgentRuntime.start(file, config, new ConfigLoader({ id }))
    agents << agent
    agent
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

  private static <T> org.springframework.beans.factory.ObjectProvider<T> provider(T bean, Class<T> type = bean.getClass()) {
    def factory = new StaticListableBeanFactory()
    factory.addBean(type.simpleName, bean)
    factory.getBeanProvider(type)
  }

  private static org.springframework.beans.factory.ObjectProvider<TunnelKubeconfigs> provider(
      org.springframework.beans.factory.ObjectFactory<TunnelKubeconfigs> lazy) {
    [getObject: { -> lazy.getObject() }] as org.springframework.beans.factory.ObjectProvider<TunnelKubeconfigs>
  }

  private static Map kubectl(Path kubeconfig, String... args) {
    Kubectl.run(kubeconfig, null, args)
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
