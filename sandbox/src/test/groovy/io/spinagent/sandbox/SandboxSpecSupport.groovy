package io.spinagent.sandbox

import groovy.json.JsonSlurper
import io.spinagent.sandbox.host.ClouddriverHost
import io.spinagent.sandbox.host.PluginsRoot
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository
import io.spinagent.testkit.db.EmbeddedPostgreSql
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.springframework.context.ConfigurableApplicationContext

import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths

/**
 * What the specs that run the released bundle in a Clouddriver host share: the host on PostgreSQL,
 * the real agent jar in a JVM of its own, JSON calls to a host's REST API, and free ports.
 */
class SandboxSpecSupport {

  static final String PLUGIN_ID = 'SpinAgent.Kubernetes'

  /**
   * A Clouddriver host with the plugin enabled, the SQL cache and account storage on {@code db},
   * agents on {@code grpcPort}, the tunnel and web server on free ports; {@code settings} add to
   * or override those properties.
   */
  static ConfigurableApplicationContext startHost(PluginsRoot plugins, EmbeddedPostgreSql db,
      SqlAccountDefinitionRepository accounts, int grpcPort, Map<String, Object> settings,
      Map<String, Object> beans = [:]) {
    Map<String, Object> properties = [
      ("spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled".toString()): true,
      'server.port': 0,
      'sql.cache.enabled': true,
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': grpcPort,
      'spinagent.tunnel.port': 0]
    properties.putAll(settings)
    ClouddriverHost.start(plugins.directory(), properties,
      [dataSource: db.dataSource(), jooq: DSL.using(db.dataSource(), SQLDialect.POSTGRES),
       accountDefinitionRepository: accounts, accountDefinitionMapper: accounts.definitionMapper()] + beans)
  }

  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

  /** Starts {@code java -jar spinagent-agent.jar --config config}, its output to {@code log}. */
  static Process startAgentJar(Path config, Path log) {
    def jar = Paths.get('..', 'agent', 'target', 'spinagent-agent.jar').toAbsolutePath().normalize()
    assert Files.exists(jar): "the agent's runnable jar is built before the sandbox: $jar"
    new ProcessBuilder(Paths.get(System.getProperty('java.home'), 'bin', 'java').toString(), '-jar', jar.toString(),
        '--config', config.toString())
      .redirectErrorStream(true)
      .redirectOutput(log.toFile())
      .start()
  }

  /**
   * Starts the agent jar as {@code agent-1} in {@code zone-a}, connecting in plaintext to {@code grpcPort},
   * with {@code accounts} (YAML: the list under {@code kubernetes.accounts}); its configuration and log
   * go to {@code dir}.
   */
  static Process startZoneAgent(Path dir, int grpcPort, String accounts) {
    def config = Files.writeString(dir.resolve('spinagent.yaml'), """\
      agent: {id: agent-1, zoneId: zone-a}
      clouddriver: {grpc: '127.0.0.1:$grpcPort', insecure: true}
      server: {port: ${freePort()}}
      kubernetes: {accounts: $accounts}
      """.stripIndent())
    startAgentJar(config, dir.resolve('agent.log'))
  }

  /** Sends a JSON request to the host's web port: {@code [status, headers, body]} (the body parsed). */
  static Map send(ConfigurableApplicationContext host, String method, String path, String body = null) {
    def port = host.environment.getProperty('local.server.port')
    def request = HttpRequest.newBuilder(URI.create("http://localhost:$port$path"))
      .timeout(java.time.Duration.ofSeconds(60))
      .header('Content-Type', 'application/json')
      .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
      .build()
    def response = HTTP.send(request, HttpResponse.BodyHandlers.ofString())
    [status: response.statusCode(), headers: response.headers(),
     body: response.body() ? new JsonSlurper().parseText(response.body()) : null]
  }

  /** The cluster's kubeconfig as text (for account definitions that carry it). */
  static String kubeconfigText(KubernetesApiServer cluster, Path dir) {
    Files.readString(cluster.kubeconfig().writeTo(dir.resolve('cluster-copy.yaml')))
  }

  static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }
}
