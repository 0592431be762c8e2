package io.spinagent.plugin.tunnel.history

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.tunnel.TunnelOperation
import io.spinagent.plugin.tunnel.TunnelOperationListener
import java.time.Duration
import java.time.Instant
import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class TunnelMetricsSpec extends Specification {

  SimpleMeterRegistry meters = new SimpleMeterRegistry()
  TunnelMetrics metrics = new TunnelMetrics(meters)

  def "each request is timed to its response's head, by account, Kubernetes verb and status"() {
    when:
    metrics.completed(operation('prod', 'agent-1', 'GET', '/api/v1/namespaces/default/pods', '', 200, 12, 15))
    metrics.completed(operation('prod', 'agent-1', 'GET', '/api/v1/pods', 'watch=true', 200, 30, 600_000))
    metrics.completed(operation('prod', 'agent-1', 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web', '', 422, 40, 41))

    then:
    def list = meters.get('spinagent.tunnel.requests').tags('account', 'prod', 'verb', 'list', 'status', '200').timer()
    list.count() == 1
    list.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS) == 12
    def watch = meters.get('spinagent.tunnel.requests').tags('account', 'prod', 'verb', 'watch', 'status', '200').timer()
    watch.max(java.util.concurrent.TimeUnit.MILLISECONDS) == 30 // the watch's life (10 minutes) is not its latency
    meters.get('spinagent.tunnel.requests').tags('verb', 'patch', 'status', '422').timer().count() == 1
    meters.get('spinagent.tunnel.request.latency').tags('verb', 'list').timer().count() == 1
  }

  def "accounts beyond the limit, and requests that reached no agent, share account=other"() {
    when:
    (1..TunnelMetrics.MAX_ACCOUNTS + 5).each {
      metrics.completed(operation("acc-$it".toString(), 'agent-1', 'GET', '/api/v1/pods', '', 200, 1, 1))
    }
    metrics.completed(operation('no-such-account', null, 'GET', '/api/v1/pods', '', 404, 1, 1))
    metrics.completed(operation('acc-1', 'agent-1', 'GET', '/api/v1/pods', '', 200, 1, 1))

    then:
    meters.find('spinagent.tunnel.requests').timers()*.getId()*.getTag('account').toSet().size() == TunnelMetrics.MAX_ACCOUNTS + 1
    meters.get('spinagent.tunnel.requests').tags('account', 'other', 'status', '200').timer().count() == 5
    meters.get('spinagent.tunnel.requests').tags('account', 'other', 'status', '404').timer().count() == 1
    meters.get('spinagent.tunnel.requests').tags('account', 'acc-1').timer().count() == 2
  }

  def "one failing listener does not keep the others from hearing of a request"() {
    given:
    def heard = []
    def listener = TunnelOperationListener.all({ throw new IllegalStateException('history is full') } as TunnelOperationListener,
      { heard << it.account() } as TunnelOperationListener)

    when:
    listener.completed(operation('prod', 'agent-1', 'GET', '/api/v1/pods', '', 200, 1, 1))

    then:
    def e = thrown(IllegalStateException)
    e.message == 'history is full'
    heard == ['prod']
  }

  private static TunnelOperation operation(String account, String agent, String method, String path, String query,
                                           int status, long firstByteMillis, long durationMillis) {
    new TunnelOperation(account, agent, method, path, query, status, Instant.now(),
      Duration.ofMillis(firstByteMillis), Duration.ofMillis(durationMillis))
  }
}
