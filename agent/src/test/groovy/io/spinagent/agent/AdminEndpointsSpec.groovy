package io.spinagent.agent

import static io.spinagent.agent.Eventually.eventually

import groovy.json.JsonSlurper
import io.micrometer.prometheus.PrometheusConfig
import io.micrometer.prometheus.PrometheusMeterRegistry
import io.spinagent.agent.admin.PrometheusEndpoint
import io.spinagent.agent.cluster.ClusterOptions
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import io.spinagent.agent.stream.ChannelServer
import io.spinagent.protocol.v1.AccountDefinition
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The agent's admin endpoint answers the paths Armory Scale Agent's users know: /health, /accounts
 * (with Armory's filters and paging), /accounts/{name}/version, /operations, /watches, /version and
 * /prometheus_metrics beside /metrics. One running agent: a cluster with two accounts, an account
 * whose cluster is gone, and an account Clouddriver added.
 */
class AdminEndpointsSpec extends Specification {

  static final ClusterOptions FAST = ClusterOptions.DEFAULTS.withRetry(Duration.ofMillis(200), Duration.ofSeconds(1))

  @Shared @TempDir Path dir
  @Shared ChannelServer channel = new ChannelServer()
  @Shared KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  @Shared AgentRuntime runtime
  @Shared HttpClient http = HttpClient.newHttpClient()

  def setupSpec() {
    cluster.createObject('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},' +
        '"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},' +
        '"spec":{"containers":[{"name":"c","image":"i"}]}}}}')
    def kubeconfig = cluster.kubeconfig().writeTo(dir.resolve('kubeconfig.yaml'))
    def gone = KubernetesApiServer.builder().build().start()
    def goneKubeconfig = gone.kubeconfig().writeTo(dir.resolve('gone.yaml'))
    gone.close()
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, """\
      clouddriver: {grpc: '${channel.target()}', insecure: true, backoff: {baseDelay: 100ms, maxDelay: 500ms}}
      kubernetes:
        accounts:
          - {name: beta, kubeconfigFile: ${kubeconfig}, kinds: [Deployment]}
          - {name: alpha, kubeconfigFile: ${kubeconfig}, kinds: [Deployment, Pod]}
          - {name: down, kubeconfigFile: ${goneKubeconfig}, kinds: [Deployment]}
      """.stripIndent())
    def loader = new ConfigLoader({ 'admin-agent' })
    def loaded = loader.load(file) as ConfigLoadResult.Loaded
    runtime = AgentRuntime.start(file, loaded.config(), loader, FAST, 0)
    eventually { runtime.clusters().statuses().findAll { it.name() in ['alpha', 'beta'] }*.state()*.name() == ['READY', 'READY'] }
    assert channel.add(AccountDefinition.newBuilder().setName('dyn')
        .setKubeconfigContents(Files.readString(kubeconfig)).addKinds('Deployment')).ok
    eventually { runtime.clusters().status('dyn').map { it.state().name() }.orElse('') == 'READY' }
    eventually { runtime.clusters().status('down').get().state().name() == 'FAILED' }
  }

  def cleanupSpec() {
    runtime?.close()
    channel.close()
    cluster.close()
  }

  Map get(String path, int port = runtime.adminPort()) {
    def response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${port}$path")).build(),
        HttpResponse.BodyHandlers.ofString())
    [status: response.statusCode(), type: response.headers().firstValue('Content-Type').orElse(''), text: response.body(),
     json: response.headers().firstValue('Content-Type').orElse('').startsWith('application/json')
         ? new JsonSlurper().parseText(response.body()) : null]
  }

  def "/accounts: every account in name order, with Armory's Config.Name, Config.Dynamic and State.Name"() {
    when:
    def answer = get(path)

    then:
    answer.status == 200
    answer.json.total == 4
    answer.json.offset == 0
    answer.json.limit == null
    answer.json.configError == null
    answer.json.accounts*.name == ['alpha', 'beta', 'down', 'dyn']
    answer.json.accounts*.Config == [[Name: 'alpha', Dynamic: false], [Name: 'beta', Dynamic: false],
                                     [Name: 'down', Dynamic: false], [Name: 'dyn', Dynamic: true]]
    answer.json.accounts*.State*.Name == ['Healthy', 'Healthy', 'DiscoveryError', 'Healthy']
    answer.json.accounts*.state == ['READY', 'READY', 'FAILED', 'READY']
    answer.json.accounts[0].watchedKinds as Set == ['Deployment.apps', 'Pod'] as Set

    where:
    path << ['/accounts', '/accounts/']
  }

  def "/accounts?#query selects #names"() {
    when:
    def answer = get("/accounts?$query")

    then:
    answer.status == 200
    answer.json.accounts*.name == names
    answer.json.total == total

    where:
    query                                      || names                        | total
    'Config.Name=alpha'                        || ['alpha']                    | 1
    'Config.Name=alpha&Config.Name=dyn'        || ['alpha', 'dyn']             | 2
    'Config.Dynamic=true'                      || ['dyn']                      | 1
    'Config.Dynamic=FALSE'                     || ['alpha', 'beta', 'down']    | 3
    'State.Name=Healthy'                       || ['alpha', 'beta', 'dyn']     | 3
    'State.Name=DiscoveryError'                || ['down']                     | 1
    'State.Name=ConfigLoaded'                  || []                           | 0
    'State.Name=failed&State.Name=READY'       || ['alpha', 'beta', 'down', 'dyn'] | 4
    'State.Name=Healthy&Config.Dynamic=false'  || ['alpha', 'beta']            | 2
    'limit=2'                                  || ['alpha', 'beta']            | 4
    'limit=2&offset=1'                         || ['beta', 'down']             | 4
    'offtset=3'                                || ['dyn']                      | 4
    'offset=2&offtset=2&limit=1'               || ['down']                     | 4
    'offset=10'                                || []                           | 4
    'Config.Name=none'                         || []                           | 0
  }

  def "/accounts?#query is answered 400 naming #parameter"() {
    when:
    def answer = get("/accounts?$query")

    then:
    answer.status == 400
    answer.json == [error: message, parameter: parameter]

    where:
    query                     || parameter        | message
    'name=alpha'              || 'name'           | "unknown query parameter 'name'; known: Config.Name, Config.Dynamic, State.Name, limit, offset, offtset"
    'limit=0'                 || 'limit'          | "query parameter 'limit' must be a whole number from 1 to 100000, got '0'"
    'limit=ten'               || 'limit'          | "query parameter 'limit' must be a whole number from 1 to 100000, got 'ten'"
    'limit=1&limit=2'         || 'limit'          | "query parameter 'limit' is given more than once"
    'offset=-1'               || 'offset'         | "query parameter 'offset' must be a whole number from 0 to 2147483647, got '-1'"
    'offset=1&offtset=2'      || 'offtset'        | "query parameters 'offset' and 'offtset' (Armory's spelling of it) disagree: give one"
    'Config.Dynamic=maybe'    || 'Config.Dynamic' | "query parameter 'Config.Dynamic' must be true or false, got 'maybe'"
    'State.Name=Broken'       || 'State.Name'     | "query parameter 'State.Name' must be one of ConfigLoaded, Healthy, DiscoveryError, Stopped (Armory's names) or CONNECTING, SYNCING, READY, FAILED, STOPPED, got 'Broken'"
  }

  def "/accounts/{name} and /accounts/{name}/version: the cluster's version, asked for now"() {
    expect:
    get('/accounts/alpha').json.Config == [Name: 'alpha', Dynamic: false]

    when:
    def version = get('/accounts/alpha/version')

    then:
    version.status == 200
    version.json.account == 'alpha'
    version.json.apiServerHost == "127.0.0.1:${cluster.port()}".toString()
    version.json.kubernetes.gitVersion == 'v1.29.4'
    version.json.kubernetes.major == '1'
    version.json.kubernetes.minor == '29'

    when:
    def down = get('/accounts/down/version')

    then: 'a cluster that cannot be reached is named as such'
    down.status == 502
    down.json.error.startsWith("the API server of account 'down' could not be reached: ")

    expect:
    get('/accounts/nope').status == 404
    get('/accounts/nope/version').json == [error: "no account named 'nope' on this agent"]
    get('/accounts/alpha/version?x=1').json == [error: "unknown query parameter 'x'; this endpoint takes none", parameter: 'x']
  }

  def "/watches: the watches, grouped by account and watch state"() {
    when:
    def answer = get('/watches')

    then:
    answer.status == 200
    answer.json.accounts*.account == ['alpha', 'beta', 'down', 'dyn']
    with(answer.json.accounts.find { it.account == 'alpha' }) {
      state == 'READY'
      watches.keySet() == ['watching', 'notPermitted'] as Set
      watches.watching as Set == ['Deployment.apps', 'Pod'] as Set
      watches.notPermitted == []
    }
    answer.json.accounts.find { it.account == 'down' }.watches.keySet() == ['stopped', 'notPermitted'] as Set

    expect:
    get('/watches?account=dyn').json.accounts*.account == ['dyn']
    get('/watches?state=READY').status == 400
  }

  def "/operations: the requests Clouddriver relayed that are running now"() {
    given:
    cluster.faults().latency(Duration.ofSeconds(5))
    def relayed = Thread.start { channel.tunnelGet('beta', '/api/v1/namespaces/default/pods') }

    expect:
    eventually {
      def operations = get('/operations').json.operations
      operations.size() == 1 && operations[0].subMap(['account', 'method', 'verb', 'path', 'state']) ==
          [account: 'beta', method: 'GET', verb: 'list', path: '/api/v1/namespaces/default/pods', state: 'running']
    }
    get('/operations?account=alpha').json == [operations: []]
    get('/operations?verb=list').status == 400

    when:
    cluster.faults().reset()
    relayed.join()

    then:
    get('/operations').json == [operations: []]
  }

  def "/version: this agent"() {
    when:
    def answer = get('/version')

    then:
    answer.status == 200
    answer.json.name == 'spinagent-agent'
    answer.json.version == VersionProvider.version()
    answer.json.agentId == 'admin-agent'
    answer.json.java == Runtime.version().toString()
  }

  def "/prometheus_metrics answers as /metrics, on server.port and on prometheus.port"() {
    given:
    def registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
    registry.counter('spec.counter').increment()
    def endpoint = PrometheusEndpoint.start(0, registry)

    expect:
    get('/prometheus_metrics').type.startsWith('text/plain; version=0.0.4')
    get('/prometheus_metrics').text.contains('spinagent_accounts{state="READY"')
    get('/prometheus_metrics', endpoint.port()).text.contains('spec_counter_total 1.0')
    get('/metrics', endpoint.port()).text.contains('spec_counter_total 1.0')
    get('/other', endpoint.port()).status == 404

    cleanup:
    endpoint.close()
  }

  def "/metrics serves every agent metric docs/metrics.md lists, and the Kubernetes requests by verb and status"() {
    given: 'Clouddriver relays a request for an object that does not exist'
    def relayed = channel.tunnelGet('beta', '/apis/apps/v1/namespaces/default/deployments/nope')

    when:
    def metrics = get('/metrics')
    def documented = documentedAgentMetrics()

    then: 'every documented name is served, but for sessions ended: none has (PrometheusMetricsSpec shows it once one has)'
    relayed.status == 404
    metrics.status == 200
    documented.size() >= 20
    documented.contains('spinagent_kubernetes_requests_seconds')
    documented.findAll { !metrics.text.contains(it) } == ['spinagent_agent_sessions_ended_total']

    and: "the agent's own requests: discovery, access reviews, listings, watches, and the cluster that is gone"
    counted(metrics.text, 'discovery', '200') > 0
    counted(metrics.text, 'create', '201') > 0
    counted(metrics.text, 'list', '200') > 0
    counted(metrics.text, 'watch', '200') > 0
    counted(metrics.text, 'discovery', 'error') > 0

    and: 'the relayed request, the only get of a named object'
    counted(metrics.text, 'get', '404') == 1
  }

  /** The count of {@code spinagent.kubernetes.requests} with these tags, 0 when there is none. */
  static double counted(String scrape, String verb, String status) {
    def line = scrape.readLines().find { it.startsWith("spinagent_kubernetes_requests_seconds_count{status=\"$status\",verb=\"$verb\",}") }
    line == null ? 0 : Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))
  }

  /** The Prometheus names of the agent's metrics, from the tables of docs/metrics.md. */
  static List<String> documentedAgentMetrics() {
    def doc = Files.readString(Path.of('../docs/metrics.md'))
    def agentPart = doc.substring(doc.indexOf('## The agent'), doc.indexOf('**Same name, two meanings.**'))
    agentPart.readLines().findAll { it.startsWith('| `spinagent_') }.collect { (it =~ /^\| `(spinagent_[a-z_]+)/)[0][1] as String }
  }

  def "/health is unchanged, and other paths and methods are refused"() {
    expect:
    get('/health').status == 503
    get('/health').json.accounts == [beta: 'READY', alpha: 'READY', down: 'FAILED', dyn: 'READY']
    get('/debug/pprof').status == 404
    get('/debug/pprof').json.error.startsWith('not found; try /health, /accounts')
    http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:${runtime.adminPort()}/accounts"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 405
  }
}
