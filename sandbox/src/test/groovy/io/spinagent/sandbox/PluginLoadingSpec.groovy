package io.spinagent.sandbox

import groovy.json.JsonSlurper
import io.grpc.ManagedChannel
import io.grpc.health.v1.HealthCheckRequest
import io.grpc.health.v1.HealthCheckResponse
import io.grpc.health.v1.HealthGrpc
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder
import io.spinagent.sandbox.host.ClouddriverProcess
import io.spinagent.sandbox.host.PluginBundle
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.TimeUnit
import java.util.zip.ZipEntry
import java.util.zip.ZipInputStream
import java.util.zip.ZipOutputStream
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Loads the released plugin bundle into a Clouddriver of the line under test through kork's own
 * plugin framework, the way Clouddriver does, and checks what an operator relies on: the plugin
 * starts whatever version the host resolves, and whatever goes wrong with it, Clouddriver starts.
 */
class PluginLoadingSpec extends Specification {

  static final String PLUGIN_ID = 'SpinAgent.Kubernetes'
  static final String PLUGIN_CONFIG = "spinnaker.extensibility.plugins.${PLUGIN_ID}.config"
  static final String ENABLED = "spinnaker.extensibility.plugins.${PLUGIN_ID}.enabled"

  @TempDir
  Path dir

  @AutoCleanup
  ClouddriverProcess host

  @AutoCleanup('shutdownNow')
  ManagedChannel channel

  def "the enabled plugin starts on a Clouddriver that resolves no version, answers REST and gRPC health, and takes configuration from both places"() {
    given:
    int grpcPort = freePort()

    when: 'the host resolves no version, as Clouddriver itself does'
    host = startHost(
      (ENABLED): true,
      // The plugin's own config block wins over the top-level block for the same key...
      ("${PLUGIN_CONFIG}.grpc.port".toString()): grpcPort,
      'spinagent.grpc.port': 1,
      // ...and top-level keys it does not set still apply.
      'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.max-inbound-message-size': '8MB')

    then:
    plugins().systemVersion == '0.0.0'
    pluginState() == 'STARTED'

    when:
    def response = get('/spinagent/info')
    def info = new JsonSlurper().parseText(response.body())

    then:
    response.statusCode() == 200
    info.pluginId == PLUGIN_ID
    info.version == '0.1.0'
    info.requires == 'clouddriver>=5.90.0 & <2026.5.0'
    info.grpc.port == grpcPort
    info.grpc.address == '127.0.0.1'
    info.grpc.maxInboundMessageSize == 8 * 1024 * 1024

    and: 'the log says which host layer serves this line'
    log().contains("with its ${layerOf(SandboxSpecSupport.line())} host layer")

    when:
    channel = NettyChannelBuilder.forAddress('127.0.0.1', grpcPort).usePlaintext().build()
    def health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
      .check(HealthCheckRequest.getDefaultInstance())

    then:
    health.status == HealthCheckResponse.ServingStatus.SERVING

    when:
    host.close()

    then: 'stopping Clouddriver frees the agent port'
    portIsFree(grpcPort)
  }

  def "stopping the plugin frees its gRPC port while Clouddriver keeps running"() {
    given:
    int grpcPort = freePort()
    host = startHost((ENABLED): true, 'spinagent.grpc.address': '127.0.0.1', 'spinagent.grpc.port': grpcPort)

    expect:
    !portIsFree(grpcPort)

    when:
    def stopped = post('/standin/plugins/SpinAgent.Kubernetes/stop')

    then:
    new JsonSlurper().parseText(stopped.body()).state == 'STOPPED'
    portIsFree(grpcPort)
    host.isAlive()
    get('/standin/plugins').statusCode() == 200
  }

  def "a disabled plugin does not start"() {
    given:
    int grpcPort = freePort()

    when:
    host = startHost((ENABLED): false, 'spinagent.grpc.address': '127.0.0.1', 'spinagent.grpc.port': grpcPort)

    then:
    pluginState() != 'STARTED'
    get('/spinagent/info').statusCode() == 404
    portIsFree(grpcPort)
  }

  def "a Clouddriver that reports version #version honours the release's requires: loaded #loads"() {
    given:
    int grpcPort = freePort()

    when:
    host = startHost((ENABLED): true, 'standin.clouddriver-version': version,
      'spinagent.grpc.address': '127.0.0.1', 'spinagent.grpc.port': grpcPort)

    then:
    (pluginState() == 'STARTED') == loads
    (get('/spinagent/info').statusCode() == 200) == loads
    portIsFree(grpcPort) == !loads

    where:
    version    || loads
    '5.89.0'   || false
    '5.90.0'   || true
    '2026.4.1' || true
    '2026.5.0' || false
  }

  def "a bundle without a host layer for this Clouddriver logs one error naming what it found, registers nothing, and Clouddriver starts"() {
    given: "the released bundle without the layer this line needs, as an older release lacks a newer line's"
    Path bundle = withoutLayer(PluginBundle.built(), layerOf(SandboxSpecSupport.line()))
    int grpcPort = freePort()

    when:
    host = ClouddriverProcess.start(SandboxSpecSupport.line(), bundle, Optional.empty(),
      [(ENABLED): true, 'spinagent.grpc.address': '127.0.0.1', 'spinagent.grpc.port': grpcPort,
       'spinagent.tunnel.port': 0], dir.resolve('clouddriver.log'))

    then: 'Clouddriver runs, without anything of SpinAgent'
    host.isAlive()
    get('/standin/plugins').statusCode() == 200
    get('/spinagent/info').statusCode() == 404
    post('/credentials', '{}').statusCode() != 500
    portIsFree(grpcPort)

    and: 'one error says what the host runs on and what to install'
    def refusals = log().readLines().findAll { it.contains('cannot run on this Clouddriver') }
    refusals.size() == 1
    refusals[0].contains('ERROR')
    refusals[0].contains('SpinAgent 0.1.0 cannot run on this Clouddriver: Clouddriver (version unknown) on Spring Boot ')
    refusals[0].contains(SandboxSpecSupport.line() == '1.36' ? '(javax servlet)' : '(jakarta servlet)')
    refusals[0].contains('Install the SpinAgent release made for your Spinnaker version')
  }

  def "a plugin that fails to start is logged, leaves no port open, and Clouddriver starts"() {
    given: 'the agent port is taken by someone else'
    def taken = new ServerSocket(0, 0, InetAddress.loopbackAddress)
    int tunnelPort = freePort()

    when:
    host = startHost((ENABLED): true, 'spinagent.grpc.address': '127.0.0.1',
      'spinagent.grpc.port': taken.localPort, 'spinagent.tunnel.port': tunnelPort)

    then: 'Clouddriver runs without SpinAgent, and says why'
    host.isAlive()
    get('/standin/plugins').statusCode() == 200
    get('/spinagent/info').statusCode() == 404
    log().readLines().count { it.contains('SpinAgent did not start, so Clouddriver runs without it') } == 1

    and: 'what had started before the failing step is stopped'
    portIsFree(tunnelPort)

    cleanup:
    taken.close()
  }

  private ClouddriverProcess startHost(Map<String, Object> properties) {
    SandboxSpecSupport.startClouddriver(dir, Optional.empty(), ['spinagent.tunnel.port': 0] + properties)
  }

  /** The host layer the plugin needs on {@code line}. */
  static String layerOf(String line) {
    line == '1.36' ? 'spring-boot-2' : 'spring-boot-3'
  }

  /** A copy of {@code bundle} whose clouddriver.zip lacks the host layer {@code layer}. */
  private Path withoutLayer(Path bundle, String layer) {
    Path copy = dir.resolve(bundle.fileName.toString())
    new ZipInputStream(Files.newInputStream(bundle)).withCloseable { outer ->
      new ZipOutputStream(Files.newOutputStream(copy)).withCloseable { out ->
        for (def entry = outer.nextEntry; entry != null; entry = outer.nextEntry) {
          out.putNextEntry(new ZipEntry(entry.name))
          if (entry.name == 'clouddriver.zip') {
            def inner = new ByteArrayOutputStream()
            def kept = []
            new ZipInputStream(outer).with { zip ->
              new ZipOutputStream(inner).withCloseable { rewritten ->
                for (def e = zip.nextEntry; e != null; e = zip.nextEntry) {
                  if (!e.name.startsWith("lib/spinagent-host-${layer}-")) {
                    rewritten.putNextEntry(new ZipEntry(e.name))
                    rewritten.write(zip.readAllBytes())
                    rewritten.closeEntry()
                    kept << e.name
                  }
                }
              }
            }
            assert kept.any { it.startsWith('lib/spinagent-host-') }: 'the other layer stays'
            out.write(inner.toByteArray())
          } else {
            out.write(outer.readAllBytes())
          }
          out.closeEntry()
        }
      }
    }
    copy
  }

  private Map plugins() {
    new JsonSlurper().parseText(get('/standin/plugins').body()) as Map
  }

  private String pluginState() {
    plugins().plugins[PLUGIN_ID]?.state
  }

  private String log() {
    Files.readString(host.log())
  }

  private HttpResponse<String> get(String path) {
    HttpClient.newHttpClient().send(
      HttpRequest.newBuilder(URI.create("${host.url()}${path}")).GET().build(),
      HttpResponse.BodyHandlers.ofString())
  }

  private HttpResponse<String> post(String path, String body = '') {
    HttpClient.newHttpClient().send(
      HttpRequest.newBuilder(URI.create("${host.url()}${path}")).header('Content-Type', 'application/json')
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
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
