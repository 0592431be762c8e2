package io.spinagent.testkit.kubernetes

import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import io.kubernetes.client.openapi.ApiClient
import io.kubernetes.client.util.Config
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import okhttp3.MediaType
import okhttp3.Request
import okhttp3.RequestBody
import spock.lang.Shared
import spock.lang.Specification

/**
 * Base for specs that talk to a {@link KubernetesApiServer} with the official Java client. One server
 * per spec class (starting one costs a certificate and a port); specs that need a special server make
 * their own with {@link #startServer}.
 */
abstract class ApiServerSpecification extends Specification {

  @Shared
  KubernetesApiServer server

  @Shared
  List<KubernetesApiServer> extraServers = []

  def setupSpec() {
    server = newServer().start()
  }

  def cleanupSpec() {
    server?.close()
    extraServers*.close()
  }

  /** Override to configure the shared server. */
  KubernetesApiServer.Builder newServer() {
    KubernetesApiServer.builder()
  }

  KubernetesApiServer startServer(KubernetesApiServer.Builder builder) {
    def started = builder.start()
    extraServers << started
    started
  }

  /** An ApiClient built the way the agent builds one: from a kubeconfig file. */
  ApiClient client(KubernetesApiServer target = server, String token = null) {
    def kubeconfig = target.kubeconfig().token(token).writeTempFile()
    try {
      ApiClient client = Config.fromConfig(kubeconfig.toString())
      // Watches and informers must not time out on a quiet stream.
      client.setHttpClient(client.httpClient.newBuilder().readTimeout(0, TimeUnit.SECONDS).build())
      return client
    } finally {
      Files.deleteIfExists(kubeconfig)
    }
  }

  /**
   * A request through the official client's HTTP stack (its TLS setup and authentication), for what
   * the typed API cannot express, e.g. Accept headers asking for metadata only.
   */
  Map http(ApiClient client, String method, String path, Object body = null, Map<String, String> headers = [:]) {
    def headerParams = new HashMap<String, String>(headers)
    def builder = new Request.Builder().url(client.basePath + path)
    headerParams.each { k, v -> builder.header(k, v) }
    def token = client.authentications.get('BearerToken')?.apiKey
    if (token) {
      builder.header('Authorization', 'Bearer ' + token)
    }
    RequestBody requestBody = null
    if (body != null) {
      def text = body instanceof String ? body : JsonOutput.toJson(body)
      def contentType = headers['Content-Type'] ?: 'application/json'
      requestBody = RequestBody.create(text, MediaType.parse(contentType))
    }
    builder.method(method, requestBody)
    def response = client.httpClient.newCall(builder.build()).execute()
    try {
      def text = response.body().string()
      def json = null
      if (text && (text.startsWith('{') || text.startsWith('['))) {
        json = new JsonSlurper().parseText(text)
      }
      return [status: response.code(), json: json, text: text, contentType: response.header('Content-Type')]
    } finally {
      response.close()
    }
  }

  static Map parse(String json) {
    new JsonSlurper().parseText(json) as Map
  }

  /** Polls until the condition holds or the timeout passes; returns whether it held. */
  static boolean eventually(long timeoutMillis = 10_000, Closure<Boolean> condition) {
    long deadline = System.currentTimeMillis() + timeoutMillis
    while (System.currentTimeMillis() < deadline) {
      if (condition()) {
        return true
      }
      Thread.sleep(25)
    }
    return condition()
  }
}
