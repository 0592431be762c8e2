package io.spinagent.sandbox

import groovy.json.JsonSlurper
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.sandbox.host.PluginBundle
import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.kubernetes.KubernetesApiServer

import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths

/**
 * What the end-to-end specs share: a Clouddriver stand-in of the Spinnaker line under test (system
 * property {@value #LINE_PROPERTY}, set by each of Surefire's executions; the newest line by
 * default) running the released bundle with its SQL cache and account storage on an embedded
 * database, the real agent jar in a JVM of its own, JSON calls to a host's REST API, and free ports.
 */
class SandboxSpecSupport {

  static final String PLUGIN_ID = 'SpinAgent.Kubernetes'

  /** The Spinnaker line whose Clouddriver stand-in the specs run on. */
  static final String LINE_PROPERTY = 'spinagent.line'

  static String line() {
    System.getProperty(LINE_PROPERTY, ClouddriverProcess.NEWEST_LINE)
  }

  /**
   * A Clouddriver of the line under test with the plugin enabled, the SQL cache and account storage
   * on {@code db}, agents on {@code grpcPort}, the tunnel and web server on free ports; {@code
   * settings} add to or override those properties. Its log goes to {@code dir}.
   */
  static ClouddriverProcess startHost(Path dir, EmbeddedDatabase db, int grpcPort, Map<String, Object> settings,
      String name = 'clouddriver') {
    Map<String, Object> properties = [
      ("spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled".toString()): true,
      // Clouddriver up to Spinnaker 2026.2 keeps account storage off unless told; on from 2026.3.
      'account.storage.enabled': true,
      'account.storage.kubernetes.enabled': true,
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': grpcPort,
      'spinagent.tunnel.port': 0]
    properties.putAll(settings)
    startClouddriver(dir, Optional.of(new ClouddriverProcess.Database(db.jdbcUrl(), db.user(), db.password())),
      properties, name)
  }

  /** A Clouddriver of the line under test, with exactly {@code properties}; its log goes to {@code dir}. */
  static ClouddriverProcess startClouddriver(Path dir, Optional<ClouddriverProcess.Database> database,
      Map<String, Object> properties, String name = 'clouddriver') {
    ClouddriverProcess.start(line(), PluginBundle.built(), database, properties,
      Files.createDirectories(dir).resolve("${name}.log".toString()))
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
  static Map send(ClouddriverProcess host, String method, String path, String body = null,
      String contentType = 'application/json') {
    def request = HttpRequest.newBuilder(URI.create("${host.url()}$path"))
      .timeout(java.time.Duration.ofSeconds(60))
      .header('Content-Type', contentType)
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
