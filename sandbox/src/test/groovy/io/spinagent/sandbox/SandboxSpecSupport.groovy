package io.spinagent.sandbox

import groovy.json.JsonSlurper
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import org.springframework.context.ConfigurableApplicationContext

import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths

/**
 * What the specs that run the released bundle in a Clouddriver host share: the real agent jar in a
 * JVM of its own, JSON calls to a host's REST API, and free ports.
 */
class SandboxSpecSupport {

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
