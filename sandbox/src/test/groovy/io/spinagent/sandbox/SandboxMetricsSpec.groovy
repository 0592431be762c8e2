package io.spinagent.sandbox

import groovy.json.JsonOutput
import io.grpc.ManagedChannel
import io.grpc.Status
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.Hello
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.sandbox.agent.SandboxAgent
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.sandbox.host.PluginBundle
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Stepwise
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * A running sandbox on the line under test serves every series the Grafana dashboards query
 * (deploy/observability/dashboard-series.tsv): the plugin's from the meters of Clouddriver's
 * registry, the agent's on its {@code /metrics}. The sandbox runs with two Clouddriver replicas,
 * as the dashboards' forwarding panels need, and is driven as a day of use drives it, so that the
 * counters that exist only once something was counted exist: kubectl through both replicas'
 * tunnels, a wrong token, a dynamic account created through the second replica, an object the
 * cache cannot store, a transaction the database has retried, an agent id connected twice, and
 * Clouddriver stopping the plugin. A row neither serves fails, named.
 */
@Stepwise
class SandboxMetricsSpec extends Specification {

  static final String PLUGIN_ID = 'SpinAgent.Kubernetes'

  /** One character more than Kubernetes allows a namespace (the simulated cluster does not check). */
  static final String LONG_NAMESPACE = 'n' * 64

  @Shared @TempDir Path dir
  @Shared @AutoCleanup Sandbox sandbox
  @Shared ClouddriverProcess first
  @Shared ClouddriverProcess second

  PollingConditions eventually = new PollingConditions(timeout: 60, delay: 0.5)

  def setupSpec() {
    sandbox = Sandbox.start(SandboxOptions.parse('--random-ports', '--no-color', '--replicas', '2',
      '--line', SandboxSpecSupport.line()), PluginBundle.built(), System.out)
    first = sandbox.clouddriver()
    second = sandbox.secondReplica().orElseThrow()
  }

  def "the agent streams the demo to the first replica; the second forwards to it"() {
    expect:
    new PollingConditions(timeout: 180, delay: 0.5).eventually {
      assert SandboxSpecSupport.send(first, 'GET', '/spinagent/accounts/sandbox').body?.state == 'ACTIVE'
      assert rows('cats_v1_pod') == 2
      def forwarded = Kubectl.run(sandbox.secondTunnelKubeconfig().orElseThrow(), 'get', 'deployments', '-o', 'name')
      assert forwarded.exit == 0 && forwarded.out.trim() == 'deployment.apps/frontend'
    }
  }

  def "kubectl through the tunnel reads and writes; a wrong token is refused"() {
    when:
    def listed = Kubectl.run(sandbox.tunnelKubeconfig(), 'get', 'pods')
    def scaled = Kubectl.run(sandbox.tunnelKubeconfig(), 'scale', 'deployment', 'frontend', '--replicas=3')
    def wrongToken = Files.writeString(dir.resolve('wrong-token.kubeconfig'),
      Files.readString(sandbox.tunnelKubeconfig()).replaceAll(/token: '[^']+'/, "token: 'not-the-token'"))
    def refused = Kubectl.run(wrongToken, 'get', 'pods')

    then:
    listed.exit == 0
    scaled.exit == 0
    eventually.eventually { assert rows('cats_v1_pod') == 3 }
    refused.exit != 0
    refused.err.contains('the tunnel token')
  }

  def "an account created through the second replica is created by the first, where the agent is"() {
    when:
    def created = SandboxSpecSupport.send(second, 'POST', '/spinagent/accounts', JsonOutput.toJson([
      name: 'second-view', agentId: SandboxAgent.AGENT_ID, kinds: ['Deployment'],
      kubeconfigContents: Files.readString(sandbox.clusterKubeconfig())]))

    then:
    created.status == 201
    eventually.eventually {
      assert SandboxSpecSupport.send(first, 'GET', '/spinagent/accounts/second-view').body?.state == 'ACTIVE'
    }
  }

  def "an object whose namespace is too long for the cache is acknowledged, not stored, and counted"() {
    given:
    def manifest = Files.writeString(dir.resolve('too-long.yaml'), """\
      apiVersion: v1
      kind: Namespace
      metadata: {name: $LONG_NAMESPACE}
      ---
      apiVersion: v1
      kind: Service
      metadata: {name: cannot-be-cached, namespace: $LONG_NAMESPACE}
      spec:
        ports: [{port: 80}]
      """.stripIndent())

    when:
    def applied = Kubectl.run(sandbox.tunnelKubeconfig(), 'apply', '-f', manifest.toString())

    then:
    applied.exit == 0
    eventually.eventually {
      assert meters(first).any { it.name == 'spinagent.cache.changes.refused' && it.tags.reason == 'too_long' }
    }
    rows("cats_v1_service where id like '%cannot-be-cached%'") == 0
  }

  def "a transaction the database fails with a serialization conflict is run again"() {
    given: 'PostgreSQL fails the next write of a pod row, once, as it does when transactions collide'
    def sql = sandbox.database().jooq()
    sql.execute('create sequence spec_conflicts')
    sql.execute('''create function spec_conflict_once() returns trigger language plpgsql as $$
      begin
        if nextval('spec_conflicts') = 1 then
          raise exception 'could not serialize access (the spec''s conflict)' using errcode = '40001';
        end if;
        return new;
      end $$''')
    sql.execute('create trigger spec_conflict before insert or update on cats_v1_pod ' +
      'for each row execute function spec_conflict_once()')

    when:
    def scaled = Kubectl.run(sandbox.tunnelKubeconfig(), 'scale', 'deployment', 'frontend', '--replicas=4')

    then: 'the retried transaction stores the new pod'
    scaled.exit == 0
    eventually.eventually {
      assert rows('cats_v1_pod') == 4
      assert meters(first).any { it.name == 'spinagent.cache.group.retries' && it.tags.reason == 'conflict' }
    }

    cleanup:
    sql.execute('drop trigger if exists spec_conflict on cats_v1_pod')
    sql.execute('drop function if exists spec_conflict_once()')
    sql.execute('drop sequence if exists spec_conflicts')
  }

  def "a second connection with the agent's id is refused"() {
    given:
    ManagedChannel channel = NettyChannelBuilder.forAddress('localhost', sandbox.grpcPort())
      .sslContext(GrpcSslContexts.forClient().trustManager(sandbox.caCertificate().orElseThrow().toFile()).build())
      .build()
    def ended = new CompletableFuture<Status>()
    def stream = AgentChannelGrpc.newStub(channel).connect(new StreamObserver<PluginMessage>() {
      @Override
      void onNext(PluginMessage message) {}

      @Override
      void onError(Throwable error) {
        ended.complete(Status.fromThrowable(error))
      }

      @Override
      void onCompleted() {
        ended.complete(Status.OK)
      }
    })

    when:
    stream.onNext(AgentMessage.newBuilder().setHello(Hello.newBuilder()
      .addProtocolVersions(2).setAgentId(SandboxAgent.AGENT_ID).setAgentVersion('spec')).build())
    def status = ended.get(30, TimeUnit.SECONDS)

    then:
    status.code == Status.Code.ALREADY_EXISTS
    eventually.eventually {
      assert meters(first).any { it.name == 'spinagent.sessions.closed' && it.tags.status == 'ALREADY_EXISTS' }
    }

    cleanup:
    channel?.shutdownNow()?.awaitTermination(10, TimeUnit.SECONDS)
  }

  def "Clouddriver's replicas serve every plugin series the dashboards query"() {
    given:
    def documentedTags = DashboardSeriesCheck.documentedPluginTags()
    def served = meters(first) + meters(second)

    when:
    def rows = DashboardSeriesCheck.rows('plugin')
    def unserved = rows.findResults { row ->
      def problem = DashboardSeriesCheck.pluginProblem(row, served, documentedTags)
      problem ? "$row: $problem" : null
    }

    then:
    !rows.isEmpty()
    unserved == []
  }

  def "Clouddriver stops the plugin: the agent's session ends, and the agent serves every agent series the dashboards query"() {
    when: 'the plugin stops, as when Clouddriver shuts down'
    def stopped = SandboxSpecSupport.send(first, 'POST', "/standin/plugins/$PLUGIN_ID/stop")

    then:
    stopped.body.state == 'STOPPED'
    eventually.eventually { assert agentMetrics().contains('spinagent_agent_sessions_ended_total{') }

    when:
    def scrape = agentMetrics()
    def rows = DashboardSeriesCheck.rows('agent')
    def unserved = rows.findResults { row ->
      def problem = DashboardSeriesCheck.agentProblem(row, scrape)
      problem ? "$row: $problem" : null
    }

    then:
    !rows.isEmpty()
    unserved == []
  }

  /** The SpinAgent meters of a replica's registry, as its stand-in lists them. */
  private static List<Map> meters(ClouddriverProcess replica) {
    def listed = SandboxSpecSupport.send(replica, 'GET', '/standin/meters?prefix=spinagent.')
    assert listed.status == 200
    listed.body as List<Map>
  }

  private String agentMetrics() {
    def request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:${sandbox.agentAdminPort()}/metrics")).build()
    def response = SandboxSpecSupport.HTTP.send(request, HttpResponse.BodyHandlers.ofString())
    assert response.statusCode() == 200
    response.body()
  }

  private int rows(String tableAndCondition) {
    try {
      sandbox.database().jooq().fetchOne("select count(*) from $tableAndCondition".toString()).get(0, Integer)
    } catch (Exception ignored) {
      -1
    }
  }
}
