package io.spinagent.agent.cluster

import io.kubernetes.client.openapi.ApiException
import io.kubernetes.client.openapi.apis.VersionApi
import io.spinagent.agent.ConnectProxy
import io.spinagent.agent.config.AccountPermissions
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.config.ProxyEnvironment
import io.spinagent.testkit.kubernetes.KubeconfigWriter
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Path
import java.time.Duration
import javax.net.ssl.SSLPeerUnverifiedException
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Each Kubernetes connection honours HTTPS_PROXY (HTTP CONNECT, with Basic credentials when the
 * proxy asks) and NO_PROXY, unless the account's noProxy. The API server is reached under a name
 * only the proxy resolves.
 */
class ClusterProxySpec extends Specification {

  @TempDir Path dir
  KubernetesApiServer api = KubernetesApiServer.builder().start()
  ConnectProxy proxy = new ConnectProxy(['kubernetes.test': '127.0.0.1'])

  def cleanup() {
    proxy.close()
    api.close()
  }

  KubernetesAccountConfig account(Map options = [:]) {
    def kubeconfig = new KubeconfigWriter("https://kubernetes.test:${api.port()}", api.caCertificatePem())
        .writeTo(dir.resolve("kubeconfig-${UUID.randomUUID()}.yaml"))
    new KubernetesAccountConfig('prod', Optional.of(kubeconfig), Optional.empty(), false, Optional.empty(),
        (options.insecure ?: false) as boolean, [], [], [], [], false, false, AccountPermissions.UNRESTRICTED,
        Duration.ofMinutes(5), (options.noProxy ?: false) as boolean, Optional.empty(), [])
  }

  String version(KubernetesAccountConfig account, Map<String, String> environment) {
    def connection = ClusterClients.connect(account, 10, ProxyEnvironment.of { environment[it] })
    new VersionApi(connection.client()).getCode().execute().gitVersion
  }

  def "through HTTPS_PROXY; the test CA's certificate is for 127.0.0.1, so the account is insecure"() {
    expect:
    version(account(insecure: true), [HTTPS_PROXY: proxy.url()]) == 'v1.29.4'
    proxy.targets == ["kubernetes.test:${api.port()}".toString()]
  }

  def "insecure: false verifies the certificate, which does not name kubernetes.test"() {
    when:
    version(account(), [HTTPS_PROXY: proxy.url()])

    then:
    def e = thrown(ApiException)
    e.cause instanceof SSLPeerUnverifiedException
    proxy.targets == ["kubernetes.test:${api.port()}".toString()]
  }

  def "a proxy asking for credentials gets those of the URL"() {
    given:
    def guarded = new ConnectProxy(['kubernetes.test': '127.0.0.1'], 'agent:pa ss')

    expect:
    version(account(insecure: true), [HTTPS_PROXY: guarded.url('agent:pa%20ss')]) == 'v1.29.4'
    guarded.targets == ["kubernetes.test:${api.port()}".toString()]

    when: 'the credentials are wrong, the proxy refuses the connection and the request fails'
    version(account(insecure: true), [HTTPS_PROXY: guarded.url('agent:wrong')])

    then: 'naming the proxy and its answer, not the credentials'
    def e = thrown(ApiException)
    e.message.contains("the proxy 127.0.0.1:${guarded.port()} (HTTPS_PROXY) answered 407 Proxy Authentication" +
        " Required to CONNECT kubernetes.test:${api.port()}: it refused the credentials in HTTPS_PROXY")
    !e.message.contains('wrong')
    !guarded.refused.isEmpty()
    guarded.targets.size() == 1

    when: 'there are no credentials to give'
    version(account(insecure: true), [HTTPS_PROXY: guarded.url()])

    then:
    def none = thrown(ApiException)
    none.message.contains("the proxy 127.0.0.1:${guarded.port()} (HTTPS_PROXY) answered 407 Proxy Authentication" +
        " Required to CONNECT kubernetes.test:${api.port()}: it asks for credentials; give them in HTTPS_PROXY" +
        ' (http://user:password@host:port)')

    cleanup:
    guarded.close()
  }

  def "not through the proxy with #why"() {
    when:
    version(account(insecure: true, noProxy: noProxy), variables.collectEntries { k, v -> [k, v == 'PROXY' ? proxy.url() : v] })

    then:
    thrown(ApiException)
    proxy.targets.isEmpty()

    where:
    why                         | noProxy | variables
    'noProxy on the account'    | true    | [HTTPS_PROXY: 'PROXY']
    'NO_PROXY naming it'        | false   | [HTTPS_PROXY: 'PROXY', NO_PROXY: '.test']
    'only HTTP_PROXY set'       | false   | [HTTP_PROXY: 'PROXY']
  }

  def "an unusable proxy fails the account (not the agent), naming the variable and the way out"() {
    when:
    ClusterClients.connect(account(), 10, ProxyEnvironment.of { it == 'HTTPS_PROXY' ? 'https://proxy:3128' : null })

    then:
    def e = thrown(IOException)
    e.message == 'HTTPS_PROXY names a https proxy; the agent connects through HTTP proxies only (http://host:port)' +
        ' (set noProxy: true on the account, or kubernetes.noProxy, to connect directly)'
  }
}
