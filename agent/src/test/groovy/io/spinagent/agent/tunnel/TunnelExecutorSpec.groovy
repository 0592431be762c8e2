package io.spinagent.agent.tunnel

import com.google.gson.Gson
import io.kubernetes.client.openapi.ApiClient
import io.kubernetes.client.util.ClientBuilder
import io.kubernetes.client.util.KubeConfig
import io.spinagent.agent.config.OperationsConfig
import io.spinagent.agent.config.OperationsConfig.AllowRule
import io.spinagent.protocol.v1.Header
import io.spinagent.protocol.v1.TunnelCancel
import io.spinagent.protocol.v1.TunnelEnd
import io.spinagent.protocol.v1.TunnelFrame
import io.spinagent.protocol.v1.TunnelRequestHead
import io.spinagent.protocol.v1.TunnelWindow
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The agent's side of the tunnel against testkit's API server: the allow-list, the per-account
 * limits, and the credentials it uses (its own, never what Clouddriver sent).
 */
class TunnelExecutorSpec extends Specification {

  @AutoCleanup
  KubernetesApiServer cluster = KubernetesApiServer.builder().start()

  @AutoCleanup
  TunnelExecutor executor

  List<TunnelFrame> sent = new CopyOnWriteArrayList<>()
  List<List<TunnelFrame>> handOffs = new CopyOnWriteArrayList<>()
  PollingConditions eventually = new PollingConditions(timeout: 20, delay: 0.05)
  Map<Long, Map> responses = new ConcurrentHashMap<>()
  long lastId = 0

  def setup() {
    cluster.accessControl().acceptToken('agent-token', 'spinagent-agent', { true })
  }

  def "requests outside the allow-list are answered 403 naming the rule; discovery and allowed requests run"() {
    given:
    start(new OperationsConfig(32, 64, [
      new AllowRule(['get', 'list', 'watch'], ['/api/v1/namespaces/*/pods/**']),
      new AllowRule(['*'], ['/apis/apps/v1/namespaces/staging/**'])]))

    when:
    def patch = request('PATCH', '/api/v1/namespaces/default/pods/web', '', '{}')
    def deployments = request('GET', '/apis/apps/v1/namespaces/default/deployments', '')
    def pods = request('GET', '/api/v1/namespaces/default/pods', 'limit=5')
    def discovery = request('GET', '/apis/apps/v1', '')

    then:
    eventually.eventually { assert [patch, deployments, pods, discovery].every { ended(it) } }
    status(patch) == 403
    body(patch).reason == 'Forbidden'
    body(patch).message == "SpinAgent agent 'agent-1' refuses PATCH /api/v1/namespaces/default/pods/web for account 'prod': " +
      "operations.allow[0] (verbs [get, list, watch] on [/api/v1/namespaces/*/pods/**]) matches the path but not the verb 'patch'"
    status(deployments) == 403
    body(deployments).message.endsWith("no rule of operations.allow matches the path (verb 'list')")
    status(pods) == 200
    body(pods).kind == 'PodList'
    status(discovery) == 200
    cluster.requestLog().entries().every { it.uri() != '/api/v1/namespaces/default/pods/web' }
  }

  def "the agent's own credentials reach the API server, never the token Clouddriver sent"() {
    given:
    start(OperationsConfig.DEFAULT)

    when:
    def id = request('GET', '/api/v1/namespaces', '', null, ['Authorization': 'Bearer clouddriver-tunnel-token'])

    then:
    eventually.eventually { assert ended(id) }
    status(id) == 200
    cluster.requestLog().entries().findAll { it.uri() == '/api/v1/namespaces' }*.user() == ['spinagent-agent']
  }

  def "past the concurrent limit requests wait their turn without credit, and past the queue they get 429"() {
    given: 'one request at a time per account, one waiting'
    start(new OperationsConfig(1, 1, []))

    when: 'a watch holds the only slot'
    def watch = request('GET', '/api/v1/namespaces/default/configmaps', 'watch=true')
    eventually.eventually { assert status(watch) == 200 }
    def queued = request('GET', '/api/v1/namespaces', '')
    def refused = request('GET', '/api/v1/namespaces/default', '')

    then: 'the third is refused at once, naming the limits'
    eventually.eventually { assert ended(refused) }
    status(refused) == 429
    body(refused).message == "account 'prod' already has 1 requests running and 1 waiting on agent 'agent-1'" +
      " (operations.maxConcurrentPerAccount, operations.maxQueuedPerAccount)"

    and: 'the second has neither run nor been given credit for its body'
    status(queued) == null
    !sent.any { it.streamId == queued && it.hasWindow() }

    when: 'the watch ends'
    executor.frame(TunnelFrame.newBuilder().setStreamId(watch).setCancel(TunnelCancel.newBuilder().setReason('done')).build())

    then: 'the waiting request runs'
    eventually.eventually { assert ended(queued) }
    status(queued) == 200
    body(queued).kind == 'NamespaceList'
  }

  def "a request without a body runs without credit, and a small answer leaves as head, body and end together"() {
    given:
    start(OperationsConfig.DEFAULT)
    cluster.createObject('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},"data":{"mode":"blue"}}')

    when:
    def id = request('GET', '/api/v1/namespaces/default/configmaps/settings', '', null, [:], true)

    then: 'no credit for a body that does not exist'
    eventually.eventually { assert ended(id) }
    !sent.any { it.streamId == id && it.hasWindow() }

    and: 'one hand-off carries the whole answer, its length declared'
    def answer = handOffs.find { frames -> frames.any { it.streamId == id } }
    answer*.frameCase == [TunnelFrame.FrameCase.RESPONSE_HEAD, TunnelFrame.FrameCase.BODY, TunnelFrame.FrameCase.END]
    answer[0].responseHead.status == 200
    answer[0].responseHead.bodyLength == answer[1].body.size()
    body(id).data == [mode: 'blue']
  }

  def "a request with a body is given credit for it, and an answer of unknown length streams"() {
    given:
    start(OperationsConfig.DEFAULT)

    when:
    def create = request('POST', '/api/v1/namespaces/default/configmaps', '',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"flags","namespace":"default"}}', ['Content-Type': 'application/json'])
    def watch = request('GET', '/api/v1/namespaces/default/configmaps', 'watch=true', null, [:], true)

    then:
    eventually.eventually { assert ended(create) && status(watch) == 200 }
    sent.find { it.streamId == create && it.hasWindow() }.window.bytes == TunnelExchange.REQUEST_WINDOW
    status(create) == 201
    def watchHead = sent.find { it.streamId == watch && it.hasResponseHead() }.responseHead
    !watchHead.hasBodyLength()
    !ended(watch)
  }

  private void start(OperationsConfig operations) {
    def kubeconfig = cluster.kubeconfig().token('agent-token').toYaml()
    ApiClient client = ClientBuilder.kubeconfig(KubeConfig.loadKubeConfig(new StringReader(kubeconfig))).build()
    executor = new TunnelExecutor({ account -> account == 'prod' ? Optional.of(client) : Optional.empty() },
      { TunnelFrame[] frames -> handOffs << (frames as List); frames.each { sent << it; collect(it) } } as TunnelFrameSink, operations, 'agent-1')
  }

  private long request(String method, String path, String query, String body = null, Map<String, String> headers = [:],
                       boolean withoutBody = false) {
    long id = ++lastId
    def head = TunnelRequestHead.newBuilder().setAccount('prod').setMethod(method).setPath(path).setQuery(query)
      .setInitialWindow(1 << 20).setWithoutBody(withoutBody)
      .addHeaders(Header.newBuilder().setName('Accept').addValues('application/json'))
    headers.each { name, value -> head.addHeaders(Header.newBuilder().setName(name).addValues(value)) }
    if (body != null && !headers.containsKey('Content-Type')) {
      head.addHeaders(Header.newBuilder().setName('Content-Type').addValues('application/merge-patch+json'))
    }
    executor.frame(TunnelFrame.newBuilder().setStreamId(id).setRequestHead(head).build())
    if (body != null) {
      executor.frame(TunnelFrame.newBuilder().setStreamId(id).setBody(com.google.protobuf.ByteString.copyFromUtf8(body)).build())
    }
    executor.frame(TunnelFrame.newBuilder().setStreamId(id).setEnd(TunnelEnd.getDefaultInstance()).build())
    id
  }

  private synchronized void collect(TunnelFrame frame) {
    def response = responses.computeIfAbsent(frame.streamId) { [body: new ByteArrayOutputStream(), ended: false] }
    if (frame.hasResponseHead()) {
      response.status = frame.responseHead.status
    } else if (frame.hasBody()) {
      frame.body.writeTo(response.body)
    } else if (frame.hasEnd()) {
      response.ended = true
    }
  }

  private Integer status(long id) {
    responses[id]?.status
  }

  private boolean ended(long id) {
    responses[id]?.ended
  }

  private Map body(long id) {
    new Gson().fromJson(responses[id].body.toString('UTF-8'), Map)
  }
}
