package io.spinagent.sandbox

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
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * Migration by name pattern (Armory's kubesvc.dynamicAccounts.namePatterns and
 * credentialScanNamePatterns): Clouddriver's Kubernetes accounts, in account storage or in its
 * configuration files, whose names match are handed to the zone's agent, a batch per scan, and the
 * others are left alone. The released bundle in a Clouddriver of the line under test, whose
 * Kubernetes accounts are Clouddriver's own AccountDefinitionSource over both; a real agent.
 */
class AutoMigrationSpec extends Specification {

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
    ['legacy-1', 'legacy-2', 'other'].each { name ->
      clouddriverAccounts.create([name: name, kubeconfigContents: kubeconfigText(),
        kinds: ['Deployment'], cacheThreads: 2])
    }
    // What clouddriver.yml's kubernetes.accounts lists
    String kubeconfig = kubeconfigText()
    def configurationFiles = ['file-1', 'file-other'].withIndex().collectEntries { name, i ->
      [("kubernetes.accounts[$i].name".toString()): name,
       ("kubernetes.accounts[$i].kubeconfigContents".toString()): kubeconfig,
       ("kubernetes.accounts[$i].cacheThreads".toString()): 2]
    }
    int grpcPort = freePort()
    host = SandboxSpecSupport.startHost(dir, db, grpcPort, configurationFiles + [
      'spinagent.accounts.auto-migrate.name-patterns[0]': 'legacy-.*',
      'spinagent.accounts.auto-migrate.configured-name-patterns[0]': 'file-[0-9]+',
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
        def definition = clouddriverAccounts.getByName(name)
        assert definition.cacheThreads == 0
        assert definition.kubeconfigContents.contains("/clusters/$name")
      }
    }
    send('GET', '/spinagent/agents/agent-1').body.accounts.containsAll(['legacy-1', 'legacy-2'])

    and: 'the account whose name does not match is untouched'
    send('GET', '/spinagent/accounts/other').status == 404
    clouddriverAccounts.getByName('other').cacheThreads == 2
  }

  def "accounts of Clouddriver's configuration files whose names match configured-name-patterns are migrated too"() {
    expect: 'served by the agent; the tunnel definition in account storage is the one Clouddriver loads'
    eventually.eventually {
      def account = send('GET', '/spinagent/accounts/file-1').body
      assert account?.state == 'ACTIVE'
      assert account.source == 'MIGRATED'
      def stored = clouddriverAccounts.getByName('file-1')
      assert stored?.cacheThreads == 0
      assert stored.kubeconfigContents.contains('/clusters/file-1')
    }
    def loaded = send('GET', '/standin/kubernetes-accounts').body.findAll { it.name == 'file-1' }
    loaded.size() == 1
    loaded[0].cacheThreads == 0

    and: 'the file account whose name does not match is untouched'
    send('GET', '/spinagent/accounts/file-other').status == 404
    clouddriverAccounts.getByName('file-other') == null
  }

  private Process startAgent(int grpcPort) {
    SandboxSpecSupport.startZoneAgent(dir, grpcPort, '[]')
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
