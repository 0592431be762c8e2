package io.spinagent.sandbox

import groovy.json.JsonOutput
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * SpinAgent's accounts as Clouddriver lists them (GET /credentials), with Clouddriver's account
 * storage as each line has it: on by default from Spinnaker 2026.3 (the newest line's stand-in),
 * switched on by configuration before. Each account appears once, with its tunnel definition, even
 * when Clouddriver's configuration files name it too, and follows the account through changes.
 */
@Stepwise
class AccountStorageSpec extends Specification {

  @Shared @TempDir Path dir
  @Shared @AutoCleanup EmbeddedPostgreSql db = EmbeddedPostgreSql.launch()
  @Shared @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared @AutoCleanup ClouddriverProcess host
  @Shared Process agent
  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.2)

  def setupSpec() {
    int grpcPort = SandboxSpecSupport.freePort()
    String kubeconfig = SandboxSpecSupport.kubeconfigText(cluster, dir)
    Map<String, Object> properties = [
      ("spinnaker.extensibility.plugins.${SandboxSpecSupport.PLUGIN_ID}.enabled".toString()): true,
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': grpcPort,
      'spinagent.tunnel.port': 0,
      // clouddriver.yml names 'prod' too, with the cluster's own credentials.
      'kubernetes.accounts[0].name': 'prod',
      'kubernetes.accounts[0].kubeconfigContents': kubeconfig,
      'kubernetes.accounts[0].cacheThreads': 1]
    if (SandboxSpecSupport.line() != ClouddriverProcess.NEWEST_LINE) {
      // Up to Spinnaker 2026.2, account storage is off unless configured.
      properties += ['account.storage.enabled': true, 'account.storage.kubernetes.enabled': true]
    }
    host = SandboxSpecSupport.startClouddriver(dir,
      Optional.of(new ClouddriverProcess.Database(db.jdbcUrl(), db.user(), db.password())), properties)
    def clusterKubeconfig = cluster.kubeconfig().writeTo(dir.resolve('cluster.yaml'))
    agent = SandboxSpecSupport.startZoneAgent(dir, grpcPort,
      "[{name: prod, kubeconfigFile: '$clusterKubeconfig', kinds: [Deployment]}]")
  }

  def cleanupSpec() {
    agent?.destroy()
    agent?.waitFor(20, TimeUnit.SECONDS)
  }

  def "an agent's account appears once in Clouddriver, with the tunnel definition, over the configuration file's"() {
    expect:
    eventually.eventually {
      assert send('GET', '/spinagent/accounts/prod').body?.state == 'ACTIVE'
      assert named('prod').size() == 1
      assert details('prod').kubeconfigContents.contains('/clusters/prod')
    }
    details('prod').cacheThreads == 0
  }

  def "a dynamic account appears once, follows its changes, and is gone when deleted"() {
    when:
    def created = send('POST', '/spinagent/accounts', JsonOutput.toJson([name: 'dyn', agentId: 'agent-1',
      kubeconfigContents: SandboxSpecSupport.kubeconfigText(cluster, dir), kinds: ['Deployment']]))

    then:
    created.status in [201, 202]
    eventually.eventually {
      assert named('dyn').size() == 1
      assert details('dyn').kinds == ['Deployment.apps']
    }

    when:
    def changed = send('PUT', '/spinagent/accounts/dyn', JsonOutput.toJson([agentId: 'agent-1',
      kubeconfigContents: SandboxSpecSupport.kubeconfigText(cluster, dir), kinds: ['Deployment', 'Service']]))

    then:
    changed.status in [200, 202]
    eventually.eventually {
      assert named('dyn').size() == 1
      assert details('dyn').kinds as Set == ['Deployment.apps', 'Service'] as Set
    }

    when:
    def deleted = send('DELETE', '/spinagent/accounts/dyn')

    then:
    deleted.status == 204
    eventually.eventually { assert named('dyn').isEmpty() }
  }

  def "switched off, the agent's account leaves account storage, and Clouddriver falls back to its configuration file"() {
    when:
    def off = send('PUT', '/spinagent/accounts/prod', '{"state": "INACTIVE"}')

    then:
    off.status == 200
    eventually.eventually {
      assert named('prod').size() == 1
      assert !details('prod').kubeconfigContents.contains('/clusters/prod')
      assert details('prod').cacheThreads == 1
    }

    when:
    def on = send('PUT', '/spinagent/accounts/prod', '{"state": "ACTIVE"}')

    then:
    on.status == 200
    eventually.eventually {
      assert named('prod').size() == 1
      assert details('prod').kubeconfigContents.contains('/clusters/prod')
    }
  }

  /** The accounts of that name Clouddriver lists. */
  private List<Map> named(String name) {
    send('GET', '/credentials').body.findAll { it.name == name }
  }

  private Map details(String name) {
    send('GET', "/credentials/$name").body as Map
  }

  private Map send(String method, String path, String body = null) {
    SandboxSpecSupport.send(host, method, path, body)
  }
}
