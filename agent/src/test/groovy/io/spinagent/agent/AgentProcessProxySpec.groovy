package io.spinagent.agent

import static io.spinagent.agent.Eventually.eventually

import io.spinagent.agent.stream.ChannelServer
import io.spinagent.testkit.kubernetes.KubeconfigWriter
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The agent as a process, with HTTPS_PROXY in its environment as Armory's users set it: both its
 * connection to Clouddriver and its connection to the cluster go through the proxy, which alone
 * can resolve the names they are configured with.
 */
class AgentProcessProxySpec extends Specification {

  @TempDir Path dir
  ChannelServer clouddriver = new ChannelServer()
  KubernetesApiServer cluster = KubernetesApiServer.builder().start()
  ConnectProxy proxy = new ConnectProxy(['clouddriver.test': '127.0.0.1', 'kubernetes.test': '127.0.0.1'])
  Process agent

  def cleanup() {
    if (agent != null) {
      agent.destroy()
      if (!agent.waitFor(20, TimeUnit.SECONDS)) {
        agent.destroyForcibly().waitFor()
      }
    }
    proxy.close()
    cluster.close()
    clouddriver.close()
  }

  def "HTTPS_PROXY carries the gRPC connection and the Kubernetes connection"() {
    given:
    cluster.createObject('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},' +
        '"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},' +
        '"spec":{"containers":[{"name":"c","image":"i"}]}}}}')
    new KubeconfigWriter("https://kubernetes.test:${cluster.port()}", cluster.caCertificatePem())
        .writeTo(dir.resolve('kubeconfig.yaml'))
    def config = dir.resolve('armory-agent.yml')
    Files.writeString(config, """\
      clouddriver:
        grpc: clouddriver.test:${clouddriver.port()}
        insecure: true
        backoff: {baseDelay: 100ms, maxDelay: 1s}
      server:
        port: ${new ServerSocket(0).withCloseable { it.localPort }}
      kubernetes:
        accounts:
          - name: proxied
            kubeconfigFile: kubeconfig.yaml
            insecure: true
            kinds: [Deployment]
      """.stripIndent())
    def builder = AgentJvm.command(['--config', config.toString()])
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve('agent.log').toFile())
    builder.environment().keySet().removeAll(['NO_PROXY', 'no_proxy', 'HTTP_PROXY', 'http_proxy', 'https_proxy'])
    builder.environment().put('HTTPS_PROXY', proxy.url())

    when:
    agent = builder.start()

    then:
    eventually { clouddriver.objects('proxied') == ['Deployment default/web'] as Set }
    proxy.targets as Set == ["clouddriver.test:${clouddriver.port()}", "kubernetes.test:${cluster.port()}"]*.toString() as Set
    Files.readString(dir.resolve('agent.log')).contains(
        "Connecting to Clouddriver at clouddriver.test:${clouddriver.port()} (plaintext, through proxy 127.0.0.1:${proxy.port()} (HTTPS_PROXY))")
  }
}
