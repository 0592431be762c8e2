package io.spinagent.agent.stream

import io.grpc.Status
import io.spinagent.agent.config.ProxyEnvironment
import io.spinagent.agent.config.binding.ConfigLoadResult
import io.spinagent.agent.config.binding.ConfigLoader
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.Executors
import spock.lang.Specification
import spock.lang.TempDir

/**
 * A file carried over from Armory Scale Agent that relies on Armory's plaintext default meets a
 * plaintext Clouddriver port: SpinAgent tries TLS, and the failure says why and names
 * clouddriver.insecure and the default that changed.
 */
class TlsFailureHintSpec extends Specification {

  @TempDir Path dir
  ChannelServer clouddriver = new ChannelServer()
  def executor = Executors.newSingleThreadScheduledExecutor()
  ClouddriverConnection connection

  def cleanup() {
    connection?.close()
    executor.shutdownNow()
    clouddriver.close()
  }

  def "an armory-agent.yml without clouddriver.insecure, against a plaintext port"() {
    given:
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, "clouddriver:\n  grpc: ${clouddriver.target()}\n")
    def loaded = new ConfigLoader({ 'h' }).load(file) as ConfigLoadResult.Loaded

    when:
    connection = ClouddriverConnection.open(loaded.config().clouddriver(), executor, executor, ProxyEnvironment.of { null })
    def status = Handshake.hello(connection.channel()) as Status

    then: 'the file was warned about when loaded'
    loaded.warnings()*.keyPath() == ['clouddriver.insecure']

    and: 'the connection fails, saying what to do'
    status.code == Status.Code.UNAVAILABLE
    status.description.contains("Clouddriver at ${clouddriver.target()} did not answer the TLS handshake with TLS: its agent port is plaintext." +
        ' Set clouddriver.insecure: true, or enable TLS on the plugin (spinagent.grpc.security.enabled).' +
        ' Armory Scale Agent (1.0.42 and later) connects in plaintext unless clouddriver.insecure is false;' +
        ' SpinAgent connects with TLS unless clouddriver.insecure is true.')
  }

  def "with clouddriver.insecure: true the same file connects"() {
    given:
    def file = dir.resolve('armory-agent.yml')
    Files.writeString(file, "clouddriver:\n  grpc: ${clouddriver.target()}\n  insecure: true\n")
    def loaded = new ConfigLoader({ 'h' }).load(file) as ConfigLoadResult.Loaded

    when:
    connection = ClouddriverConnection.open(loaded.config().clouddriver(), executor, executor, ProxyEnvironment.of { null })

    then:
    loaded.warnings().isEmpty()
    Handshake.hello(connection.channel()) instanceof io.spinagent.protocol.v1.Welcome
  }

  def "a failure that is not TLS's is left as it is"() {
    given:
    def hint = new ClouddriverConnection.TlsFailureHint(
        (new ConfigLoader({ 'h' }).load(Files.writeString(dir.resolve('a.yaml'), '{}')) as ConfigLoadResult.Loaded).config().clouddriver())
    def refused = Status.UNAVAILABLE.withDescription('io exception').withCause(new ConnectException('Connection refused'))

    expect:
    hint.withHint(refused).is(refused)
    hint.withHint(Status.UNAUTHENTICATED).is(Status.UNAUTHENTICATED)
  }
}
