package io.spinagent.sandbox

import com.netflix.spinnaker.kork.plugins.SpinnakerPluginManager
import groovy.json.JsonSlurper
import io.grpc.ManagedChannel
import io.grpc.health.v1.HealthCheckRequest
import io.grpc.health.v1.HealthCheckResponse
import io.grpc.health.v1.HealthGrpc
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
import io.spinagent.sandbox.host.ClouddriverHost
import io.spinagent.sandbox.host.PluginsRoot
import org.pf4j.PluginState
import org.springframework.context.ConfigurableApplicationContext
import spock.lang.AutoCleanup
import spock.lang.Specification

import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit

/**
 * Loads the released plugin bundle into a Clouddriver host through kork's own plugin framework,
 * the way Clouddriver 5.90.0 would, and checks what an operator relies on.
 */
class PluginLoadingSpec extends Specification {

  static final String PLUGIN_ID = 'SpinAgent.Kubernetes'
  static final String PLUGIN_CONFIG = "spinnaker.extensibility.plugins.${PLUGIN_ID}.config"

  @AutoCleanup
  PluginsRoot pluginsRoot = PluginsRoot.withBundle(PluginsRoot.builtBundle())

  @AutoCleanup
  ConfigurableApplicationContext host

  @AutoCleanup('shutdownNow')
  ManagedChannel channel

  def "the enabled plugin starts, answers REST and gRPC health, and takes configuration from both places"() {
    given:
    int grpcPort = freePort()

    when:
    host = startHost(
      ("spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled".toString()): true,
      // The plugin's own config block wins over the top-level block for the same key...
      ("${PLUGIN_CONFIG}.grpc.port".toString()): grpcPort,
      'spinagent.grpc.port': 1,
      // ...and top-level keys it does not set still apply.
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.max-inbound-message-size': '8MB')

    then:
    pluginState() == PluginState.STARTED

    when:
    def response = get('/spinagent/info')
    def info = new JsonSlurper().parseText(response.body())

    then:
    response.statusCode() == 200
    info.pluginId == PLUGIN_ID
    info.version == '0.1.0'
    info.requires == 'clouddriver>=5.90.0'
    info.grpc.port == grpcPort
    info.grpc.address == '127.0.0.1'
    info.grpc.maxInboundMessageSize == 8 * 1024 * 1024

    when:
    channel = NettyChannelBuilder.forAddress('127.0.0.1', grpcPort).usePlaintext().build()
    def health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
      .check(HealthCheckRequest.getDefaultInstance())

    then:
    health.status == HealthCheckResponse.ServingStatus.SERVING

    when:
    host.close()

    then: 'closing Clouddriver frees the agent port'
    portIsFree(grpcPort)
  }

  def "stopping the plugin frees its gRPC port while Clouddriver keeps running"() {
    given:
    int grpcPort = freePort()
    host = startHost(
      ("spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled".toString()): true,
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': grpcPort)

    expect:
    !portIsFree(grpcPort)

    when:
    host.getBean(SpinnakerPluginManager).stopPlugin(PLUGIN_ID)

    then:
    pluginState() == PluginState.STOPPED
    portIsFree(grpcPort)
    host.isActive()
  }

  def "a disabled plugin does not start"() {
    given:
    int grpcPort = freePort()

    when:
    host = startHost(
      ("spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled".toString()): false,
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': grpcPort)

    then:
    pluginState() != PluginState.STARTED
    get('/spinagent/info').statusCode() == 404
    portIsFree(grpcPort)
  }

  def "a Clouddriver older than the plugin requires refuses it"() {
    given:
    int grpcPort = freePort()

    when:
    host = startHost(
      ("spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled".toString()): true,
      (ClouddriverHost.VERSION_PROPERTY): '5.89.0',
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': grpcPort)

    then:
    pluginState() != PluginState.STARTED
    get('/spinagent/info').statusCode() == 404
    portIsFree(grpcPort)
  }

  private ConfigurableApplicationContext startHost(Map<String, Object> properties) {
    ClouddriverHost.start(pluginsRoot.directory(), [ 'server.port': 0, 'spinagent.tunnel.port': 0 ] + properties)
  }

  private PluginState pluginState() {
    host.getBean(SpinnakerPluginManager).getPlugin(PLUGIN_ID)?.pluginState
  }

  private HttpResponse<String> get(String path) {
    def port = host.environment.getProperty('local.server.port')
    HttpClient.newHttpClient().send(
      HttpRequest.newBuilder(URI.create("http://localhost:${port}${path}")).GET().build(),
      HttpResponse.BodyHandlers.ofString())
  }

  private static int freePort() {
    new ServerSocket(0, 0, InetAddress.loopbackAddress).withCloseable { it.localPort }
  }

  private static boolean portIsFree(int port) {
    try {
      new ServerSocket(port, 0, InetAddress.loopbackAddress).close()
      true
    } catch (IOException ignored) {
      false
    }
  }
}
