package io.spinagent.agent.stream

import io.grpc.Status
import io.spinagent.agent.ConnectProxy
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.agent.config.ClouddriverConfig
import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.OutboxConfig
import io.spinagent.agent.config.ProxyEnvironment
import io.spinagent.agent.config.TlsConfig
import io.spinagent.protocol.v1.Welcome
import java.time.Duration
import java.util.concurrent.Executors
import spock.lang.Specification

/**
 * The gRPC connection to Clouddriver honours HTTPS_PROXY (HTTP CONNECT) and NO_PROXY, unless
 * clouddriver.noProxy. Clouddriver is reached under a name only the proxy resolves, so a Welcome
 * proves the connection went through it.
 */
class ClouddriverProxySpec extends Specification {

  ChannelServer clouddriver = new ChannelServer()
  ConnectProxy proxy = new ConnectProxy(['clouddriver.test': '127.0.0.1'])
  def executor = Executors.newSingleThreadScheduledExecutor()
  List<ClouddriverConnection> connections = []

  def cleanup() {
    connections*.close()
    executor.shutdownNow()
    proxy.close()
    clouddriver.close()
  }

  ClouddriverConfig config(String host, boolean noProxy = false) {
    new ClouddriverConfig(new GrpcTarget(host, clouddriver.port()), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty()), 20, 10,
        new BackoffConfig(Duration.ofMillis(100), 1.6, 0.2, Duration.ofSeconds(1)), new OutboxConfig(1 << 20), noProxy)
  }

  Object hello(ClouddriverConfig config, Map<String, String> environment) {
    def connection = ClouddriverConnection.open(config, executor, executor, ProxyEnvironment.of { environment[it] })
    connections << connection
    Handshake.hello(connection.channel())
  }

  def "through HTTPS_PROXY with HTTP CONNECT, Clouddriver's name resolved by the proxy"() {
    expect:
    hello(config('clouddriver.test'), [HTTPS_PROXY: proxy.url()]) instanceof Welcome
    proxy.targets == ["clouddriver.test:${clouddriver.port()}".toString()]
  }

  def "the proxy's credentials from the URL are presented"() {
    given:
    def guarded = new ConnectProxy(['clouddriver.test': '127.0.0.1'], 'agent:s3cret')

    expect:
    hello(config('clouddriver.test'), [https_proxy: guarded.url('agent:s3cret')]) instanceof Welcome
    guarded.targets == ["clouddriver.test:${clouddriver.port()}".toString()]

    cleanup:
    guarded.close()
  }

  def "a proxy that refuses the connection is named with its answer: #why"() {
    given:
    def guarded = new ConnectProxy(['clouddriver.test': '127.0.0.1'], 'agent:s3cret')

    when:
    def answer = hello(config('clouddriver.test'), [HTTPS_PROXY: guarded.url(userInfo)])

    then:
    answer instanceof Status
    (answer as Status).code == Status.Code.UNAVAILABLE
    (answer as Status).description.contains("the proxy 127.0.0.1:${guarded.port()} (HTTPS_PROXY) answered" +
        " 407 Proxy Authentication Required to CONNECT clouddriver.test:${clouddriver.port()}")
    !(answer as Status).description.contains('s3cret')
    !(answer as Status).description.contains('wrong')
    guarded.refused == ["clouddriver.test:${clouddriver.port()}".toString()]

    cleanup:
    guarded.close()

    where:
    why                        | userInfo
    'wrong credentials'        | 'agent:wrong'
    'no credentials'           | null
  }

  def "not through the proxy when #why"() {
    when:
    def answer = hello(config(host, noProxy), variables.collectEntries { k, v -> [k, v == 'PROXY' ? proxy.url() : v] })

    then:
    proxy.targets.isEmpty()
    reached ? answer instanceof Welcome : (answer as Status).code == Status.Code.UNAVAILABLE

    where:
    why                                        | host               | noProxy | variables                                                    || reached
    'NO_PROXY names Clouddriver'               | 'clouddriver.test' | false   | [HTTPS_PROXY: 'PROXY', NO_PROXY: 'clouddriver.test']        || false
    'clouddriver.noProxy is true'              | 'clouddriver.test' | true    | [HTTPS_PROXY: 'PROXY']                                       || false
    'Clouddriver is on loopback'               | '127.0.0.1'        | false   | [HTTPS_PROXY: 'PROXY']                                       || true
    'only HTTP_PROXY is set (gRPC is https)'   | '127.0.0.1'        | false   | [HTTP_PROXY: 'PROXY']                                        || true
  }

  def "a proxy the agent cannot use stops it at start, naming the variable and the way out"() {
    when:
    ClouddriverConnection.open(config('clouddriver.test'), executor, executor,
        ProxyEnvironment.of { it == 'HTTPS_PROXY' ? 'socks5://proxy:1080' : null })

    then:
    def e = thrown(ChannelSetupException)
    e.message == 'clouddriver.grpc: cannot connect through the proxy: HTTPS_PROXY names a socks5 proxy; the agent' +
        ' connects through HTTP proxies only (http://host:port) (set clouddriver.noProxy: true to connect directly)'
  }
}
