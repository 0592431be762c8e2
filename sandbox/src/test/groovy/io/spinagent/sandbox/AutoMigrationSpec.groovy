package io.spinagent.sandbox

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
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit

/**
 * Migration by name pattern (Armory's kubesvc.dynamicAccounts.namePatterns): Clouddriver's
 * Kubernetes accounts whose names match are handed to the zone's agent, a batch per scan, and the
 * others are left alone. The released bundle in a Clouddriver host, a real agent.
 */
class AutoMigrationSpec extends Specification {

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup PluginsRoot pluginsRoot = PluginsRoot.withBundle(PluginsRoot.builtBundle())
  @Shared @AutoCleanup ConfigurableApplicationContext host
  @Shared Process agent
  @Shared SqlAccountDefinitionRepository clouddriverAccounts
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    CatsTemplateTables.create(db)
    AccountsTable.create(db.dataSource(), true)
    clouddriverAccounts = new SqlAccountDefinitionRepository(db.dataSource(), true)
    ['legacy-1', 'legacy-2', 'other'].each { name ->
      clouddriverAccounts.create(new KubernetesAccountDefinition(name: name, kubeconfigContents: kubeconfigText(),
        kinds: ['Deployment'], cacheThreads: 2))
    }
    int grpcPort = freePort()
    host = SandboxSpecSupport.startHost(pluginsRoot, db, clouddriverAccounts, grpcPort, [
      'spinagent.accounts.auto-migrate.name-patterns[0]': 'legacy-.*',
      'spinagent.accounts.auto-migrate.zone-id': 'zone-a',
      'spinagent.accounts.auto-migrate.scan-interval': '500ms',
      'spinagent.accounts.auto-migrate.batch-size': 1])
    agent = startAgent(grpcPort)
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "accounts whose names match are migrated to the zone's agent; the others are left alone"() {
    expect: 'both matching accounts, one per scan, served by the agent through the tunnel'
    eventually.eventually {
      ['legacy-1', 'legacy-2'].each { name ->
        def account = send('GET', "/spinagent/accounts/$name").body
        assert account?.state == 'ACTIVE'
        assert account.source == 'MIGRATED'
        assert account.zoneId == 'zone-a'
        def definition = clouddriverAccounts.getByName(name) as KubernetesAccountDefinition
        assert definition.cacheThreads == 0
        assert definition.kubeconfigContents.contains("/clusters/$name")
      }
    }
    send('GET', '/spinagent/agents/agent-1').body.accounts.containsAll(['legacy-1', 'legacy-2'])

    and: 'the account whose name does not match is untouched'
    send('GET', '/spinagent/accounts/other').status == 404
    (clouddriverAccounts.getByName('other') as KubernetesAccountDefinition).cacheThreads == 2
  }

  private Process startAgent(int grpcPort) {
    def config = Files.writeString(dir.resolve('spinagent.yaml'), """\
      agent: {id: agent-1, zoneId: zone-a}
      clouddriver: {grpc: '127.0.0.1:$grpcPort', insecure: true}
      server: {port: ${freePort()}}
      kubernetes: {accounts: []}
      """.stripIndent())
    SandboxSpecSupport.startAgentJar(config, dir.resolve('agent.log'))
  }

  private String kubeconfigText() {
    SandboxSpecSupport.kubeconfigText(cluster, dir)
  }

  private Map send(String method, String path) {
    SandboxSpecSupport.send(host, method, path)
  }


  private static int freePort() {
    SandboxSpecSupport.freePort()
  }
}
