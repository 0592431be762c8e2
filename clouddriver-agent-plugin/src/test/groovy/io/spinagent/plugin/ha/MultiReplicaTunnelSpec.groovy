package io.spinagent.plugin.ha

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.agent.AgentRuntime
import io.spinagent.agent.config.AccountPermissions
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
import io.spinagent.plugin.accounts.AccountRequestException
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.DynamicAccounts
import io.spinagent.plugin.channel.Kubectl
import io.spinagent.plugin.channel.RealAgentFixture
import io.spinagent.plugin.ha.AccountOwnerTable
import io.spinagent.plugin.tunnel.TrustingHttpClient
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedMariaDb
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import io.spinagent.testkit.net.TcpProxy
import io.spinagent.testkit.tls.TestPki
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.time.Instant
import java.util.concurrent.TimeUnit
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * Two Clouddriver replicas (the plugin's whole Spring context, twice) sharing one MariaDB, a real
 * agent and the real kubectl: whichever replica Clouddriver's kubectl reaches, its requests get to
 * the replica holding the agent's stream, with the kubeconfig stored once for all replicas. The
 * replicas talk to each other over TLS, with certificates of the company's own CA.
 */
class MultiReplicaTunnelSpec extends Specification {

  static final String SECRET = 'replicas-only-5c1e'
  static final String DEPLOYMENT = '''\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: frontend, namespace: default, labels: {app: shop}}
    spec:
      replicas: 1
      selector: {matchLabels: {app: shop}}
      template:
        metadata: {labels: {app: shop}}
        spec:
          containers:
            - {name: web, image: 'nginx:1.27'}
    '''.stripIndent()

  @Shared @AutoCleanup EmbeddedMariaDb db = EmbeddedMariaDb.launch()
  @Shared DSLContext jooq
  @Shared @TempDir Path pkiDir
  @Shared TestPki pki = TestPki.create('replicas CA')
  @Shared Map<String, Object> replicaSettings

  @TempDir Path dir
  // Bookmarks keep a quiet watch writing, which is how a relay notices a client that went away.
  @AutoCleanup KubernetesApiServer cluster = KubernetesApiServer.builder().bookmarkInterval(Duration.ofMillis(200)).start()
  @AutoCleanup PluginReplica replicaA
  @AutoCleanup PluginReplica replicaB
  @AutoCleanup TcpProxy loadBalancer
  @AutoCleanup AgentRuntime agent

  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.1)
  ObjectMapper json = new ObjectMapper()

  def setupSpec() {
    CatsTemplateTables.create(db)
    jooq = DSL.using(db.dataSource(), SQLDialect.MYSQL)
    def replicaTls = pki.issueServer('clouddriver').written(pkiDir, 'replica')
    replicaSettings = [
      'spinagent.ha.shared-secret'             : SECRET,
      'spinagent.ha.tls.enabled'               : true,
      'spinagent.ha.tls.certificate-chain'     : replicaTls.certificateChain().toString(),
      'spinagent.ha.tls.private-key'           : replicaTls.privateKey().toString(),
      'spinagent.ha.tls.trust-cert-collection' : pki.writeCaCertificate(pkiDir.resolve('ca.crt')).toString()]
  }

  def setup() {
    // Every feature brings a new test cluster under the same account name: the previous feature's
    // account, still ORPHANED in the shared table, would own the name (it belongs to one cluster).
    if (jooq.fetchExists(DSL.selectOne().from(DSL.table('information_schema.tables'))
        .where(DSL.field('table_schema').eq(DSL.field('database()')))
        .and(DSL.field('table_name').eq('spinagent_accounts')))) {
      jooq.execute('delete from spinagent_accounts')
    }
    replicaA = new PluginReplica(jooq, replicaSettings)
    replicaB = new PluginReplica(jooq, replicaSettings)
    // Agents reach Clouddriver through a load balancer; this one sends them to replica B for now.
    loadBalancer = TcpProxy.start('127.0.0.1', replicaB.grpcPort())
    agent = startAgent(loadBalancer.port())
    eventually.eventually {
      assert replicaB.accounts().find('prod').map { it.state() }.orElse(null) == AccountState.ACTIVE
      assert owner('prod')?.replicaId() == replicaB.id()
    }
  }

  def "both replicas share the tunnel's CA and the accounts' tokens"() {
    expect:
    replicaA.caCertificatePem() == replicaB.caCertificatePem()
    replicaA.tokens().issue('prod') == replicaB.tokens().issue('prod')
  }

  def "kubectl through replica A reaches the agent on replica B; when B stops, the agent moves to A and kubectl works again"() {
    given: 'the kubeconfig Clouddriver stored once: token and CA from replica B, the server of replica A'
    def kubeconfig = kubeconfig(replicaA.clusterUrl('prod'), replicaB)

    when: 'Clouddriver on replica A deploys'
    def applied = kubectl(kubeconfig, DEPLOYMENT, 'apply', '-o', 'json', '-f', '-')

    then: 'the request went to replica B, whose agent applied it'
    applied.exit == 0
    json.readValue(applied.out, Map).metadata.name == 'frontend'
    cluster.getObject('apps/v1', 'Deployment', 'default', 'frontend').isPresent()
    replicaA.counted('spinagent.ha.forwarded.requests', 'outcome', '200') > 0
    replicaB.counted('spinagent.ha.forwarded.received', 'outcome', 'accepted') > 0

    when: 'replica B goes away while the load balancer has nowhere else to send the agent'
    loadBalancer.refuse(true)
    replicaB.close()
    def orphaned = kubectl(kubeconfig, null, 'get', 'deployment', 'frontend', '-o', 'json')

    then: 'replica A says nobody serves the account, naming itself'
    orphaned.exit != 0
    orphaned.err.contains("account 'prod' has no connected agent on any replica")
    orphaned.err.contains(replicaA.id())
    owner('prod') == null

    when: 'the load balancer sends the agent to replica A'
    loadBalancer.retarget('127.0.0.1', replicaA.grpcPort())
    loadBalancer.refuse(false)

    then: 'A takes the account over'
    eventually.eventually {
      assert replicaA.accounts().find('prod').map { it.state() }.orElse(null) == AccountState.ACTIVE
      assert owner('prod')?.replicaId() == replicaA.id()
    }

    when: 'Clouddriver on replica A scales and reads with the same kubeconfig'
    def scaled = kubectl(kubeconfig, null, 'scale', 'deployment', 'frontend', '--replicas=3')
    def got = kubectl(kubeconfig, null, 'get', 'deployment', 'frontend', '-o', 'json')

    then:
    scaled.exit == 0
    got.exit == 0
    json.readValue(got.out, Map).spec.replicas == 3
  }

  def "a watch through replica A streams the events of the agent on replica B, and ends there when its client leaves"() {
    given: "the agent's own informer watch is open"
    eventually.eventually { assert cluster.activeWatches() > 0 }
    def agentWatches = cluster.activeWatches()
    def http = TrustingHttpClient.trusting(replicaA.caCertificatePem())
    def request = HttpRequest.newBuilder(URI.create(replicaA.clusterUrl('prod')
        + '/apis/apps/v1/namespaces/default/deployments?watch=true&allowWatchBookmarks=true'))
        .header('Authorization', "Bearer ${replicaB.tokens().issue('prod')}").build()

    when:
    def response = http.send(request, HttpResponse.BodyHandlers.ofInputStream())
    def lines = new BufferedReader(new InputStreamReader(response.body()))
    kubectl(kubeconfig(replicaA.clusterUrl('prod'), replicaB), DEPLOYMENT, 'apply', '-f', '-')

    then: 'the event arrives while the watch stays open'
    response.statusCode() == 200
    def event = nextEvent(lines)
    event.type == 'ADDED'
    event.object.metadata.name == 'frontend'
    cluster.activeWatches() == agentWatches + 1

    when: 'the client goes away'
    response.body().close()

    then: 'replica A drops its connection to B, B cancels the request at the agent, and the agent ends the watch'
    eventually.eventually { assert cluster.activeWatches() == agentWatches }
  }

  def "the forwarding endpoint admits only the shared secret, and each tunnel only the account's token"() {
    given:
    def http = HttpClient.newBuilder().sslContext(pki.clientContext()).build()
    def path = '/clusters/prod/api/v1/namespaces'
    def token = replicaB.tokens().issue('prod')

    expect: 'at replica B forwarding endpoint: no secret, a wrong one, then the right one with a wrong token'
    with(forwarded(http, path, null, token)) {
      statusCode() == 401
      body().contains('spinagent.ha.shared-secret')
    }
    forwarded(http, path, 'not-the-secret', token).statusCode() == 401
    with(forwarded(http, path, SECRET, 'not-the-token')) {
      statusCode() == 401
      body().contains("the tunnel token for account 'prod' is missing or wrong")
    }
    forwarded(http, path, SECRET, token).statusCode() == 200
    replicaB.counted('spinagent.ha.forwarded.received', 'outcome', 'unauthorized') == 2

    and: "at replica A's tunnel, a wrong token never leaves replica A"
    def tunnel = TrustingHttpClient.trusting(replicaA.caCertificatePem())
    def refused = tunnel.send(HttpRequest.newBuilder(URI.create(replicaA.clusterUrl('prod') + '/api/v1/namespaces'))
        .header('Authorization', 'Bearer not-the-token').build(), HttpResponse.BodyHandlers.ofString())
    refused.statusCode() == 401
    replicaA.counted('spinagent.ha.forwarded.requests', 'outcome', '401') == 0
  }

  def "an owner that cannot be reached, or stopped renewing, gets a 503 naming the account and the replica"() {
    given: 'accounts recorded as owned by replicas that are gone'
    def table = new AccountOwnerTable(jooq)
    def now = Instant.now()
    def closedPort = new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
    table.acquire(new AccountOwner('unreachable', 'replica-gone', "http://127.0.0.1:$closedPort", 'agent-x', now, now))
    table.acquire(new AccountOwner('silent', 'replica-silent', replicaB.forwardingUrl(), 'agent-y',
        now.minusSeconds(60), now.minusSeconds(120)))
    def http = TrustingHttpClient.trusting(replicaA.caCertificatePem())

    when:
    def unreachable = get(http, replicaA.clusterUrl('unreachable') + '/api/v1/namespaces', replicaA.tokens().issue('unreachable'))
    def silent = get(http, replicaA.clusterUrl('silent') + '/api/v1/namespaces', replicaA.tokens().issue('silent'))

    then:
    unreachable.statusCode() == 503
    unreachable.body().contains("account 'unreachable' is served by replica 'replica-gone' (http://127.0.0.1:$closedPort), which cannot be reached")
    replicaA.counted('spinagent.ha.forwarded.requests', 'outcome', 'unreachable') == 1
    silent.statusCode() == 503
    // 60 s and however long the requests above took
    silent.body() =~ /account 'silent' is owned by replica 'replica-silent', silent for 6\ds \(spinagent\.ha\.owner-timeout/

    cleanup:
    table.release('unreachable', 'replica-gone')
    table.release('silent', 'replica-silent')
  }

  def "account commands are refused by a replica that does not hold the agent's stream, naming the one that does"() {
    given:
    def onA = replicaA.plugin.getBean(DynamicAccounts)
    def onB = replicaB.plugin.getBean(DynamicAccounts)

    when: "replica A is asked to switch off the account whose agent is connected to replica B"
    onA.setActive('prod', false)

    then: 'it refuses and names replica B; the account stays served'
    def switchOff = thrown(AccountRequestException)
    switchOff.problem() == AccountRequestException.Problem.SERVED_ELSEWHERE
    switchOff.message.contains("account 'prod' is served by Clouddriver replica '${replicaB.id()}'")
    switchOff.message.contains('send the request to that replica to switch off the account')

    when: 'replica A is asked to delete it'
    onA.delete('prod')

    then: 'it refuses too, and neither the stored account nor its stream changed'
    def delete = thrown(AccountRequestException)
    delete.problem() == AccountRequestException.Problem.SERVED_ELSEWHERE
    delete.message.contains(replicaB.id())
    storedState('prod') == AccountState.ACTIVE.name()
    replicaB.accounts().find('prod').get().state() == AccountState.ACTIVE
    owner('prod')?.replicaId() == replicaB.id()

    when: 'replica B, which holds the stream, switches it off'
    onB.setActive('prod', false)

    then:
    eventually.eventually {
      assert replicaB.accounts().find('prod').get().state() == AccountState.INACTIVE
      assert storedState('prod') == AccountState.INACTIVE.name()
    }
  }

  private String storedState(String account) {
    jooq.fetchValue("select state from spinagent_accounts where name = '$account'") as String
  }

  /** The next watch event other than a bookmark. */
  private Map nextEvent(BufferedReader lines) {
    while (true) {
      def event = json.readValue(lines.readLine(), Map)
      if (event.type != 'BOOKMARK') {
        return event
      }
    }
  }

  private AccountOwner owner(String account) {
    new AccountOwnerTable(jooq).find(account).orElse(null)
  }

  /** A request straight to replica B's forwarding endpoint, as replica A would send it. */
  private HttpResponse<String> forwarded(HttpClient http, String path, String secret, String token) {
    def request = HttpRequest.newBuilder(URI.create(replicaB.forwardingUrl() + path))
        .header('Authorization', "Bearer $token")
    if (secret != null) {
      request.header(ForwardingEndpoint.SECRET_HEADER, secret)
    }
    http.send(request.build(), HttpResponse.BodyHandlers.ofString())
  }

  private static HttpResponse<String> get(HttpClient http, String url, String token) {
    http.send(HttpRequest.newBuilder(URI.create(url)).header('Authorization', "Bearer $token").build(),
        HttpResponse.BodyHandlers.ofString())
  }

  private Path kubeconfig(String server, PluginReplica secretsFrom) {
    def file = dir.resolve("kubeconfig-${UUID.randomUUID()}.yaml")
    Files.writeString(file, """\
      apiVersion: v1
      kind: Config
      clusters: [{name: prod, cluster: {server: '$server', certificate-authority-data: '${secretsFrom.caCertificatePem().bytes.encodeBase64()}'}}]
      users: [{name: clouddriver, user: {token: '${secretsFrom.tokens().issue('prod')}'}}]
      contexts: [{name: prod, context: {cluster: prod, user: clouddriver, namespace: default}}]
      current-context: prod
      """.stripIndent())
  }

  private AgentRuntime startAgent(int port) {
    def agentKubeconfig = cluster.kubeconfig().writeTo(dir.resolve('agent-kubeconfig.yaml'))
    // Built in code: this module's test class path has Clouddriver's older SnakeYAML.
    def account = new KubernetesAccountConfig('prod', Optional.of(agentKubeconfig), false, Optional.empty(),
      [], [], ['Deployment'], [], false, false, AccountPermissions.UNRESTRICTED, Duration.ofMinutes(5))
    def config = new AgentConfig(new AgentIdentityConfig('agent-ha', Optional.empty()),
      RealAgentFixture.agentConfig(port, true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty())),
      new KubernetesConfig([account]), new ServerConfig(freePort()), new PrometheusConfig(false, 8008),
      LoggingConfig.DEFAULT, new TasksConfig(1000, 50), 30)
    def configFile = Files.writeString(dir.resolve('spinagent.yaml'), 'written by the spec; the runtime only watches it\n')
    AgentRuntime.start(configFile, config, new ConfigLoader({ 'agent-ha' }))
  }

  private static Map kubectl(Path kubeconfig, String stdin, String... args) {
    Kubectl.run(kubeconfig, stdin, args)
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
