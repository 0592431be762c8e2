package io.spinagent.agent.stream

import io.grpc.CallCredentials
import io.grpc.Metadata
import io.grpc.Status
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.agent.config.ClouddriverConfig
import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.OutboxConfig
import io.spinagent.agent.config.TlsConfig
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import spock.lang.Specification
import spock.lang.TempDir

class ClouddriverConnectionSpec extends Specification {

  @TempDir
  Path dir

  ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor()

  def cleanup() {
    executor.shutdownNow()
  }

  static TlsConfig tls(Map args = [:]) {
    new TlsConfig(Optional.ofNullable(args.serverName as String), (args.skip ?: false) as boolean,
        Optional.ofNullable(args.cert as Path), Optional.ofNullable(args.key as Path), Optional.ofNullable(args.ca as Path))
  }

  static ClouddriverConfig config(Map args = [:]) {
    new ClouddriverConfig(new GrpcTarget('127.0.0.1', 9091), (args.insecure ?: false) as boolean, args.tls ?: tls(),
        args.auth ?: new AuthConfig(Optional.empty(), Optional.empty()), 20, 10,
        new BackoffConfig(Duration.ofSeconds(1), 1.6, 0.2, Duration.ofSeconds(120)), new OutboxConfig(1 << 20))
  }

  def "plaintext, system trust and skip-verify configurations build a channel without touching the network"() {
    when:
    def connection = ClouddriverConnection.open(config(cfg), executor, executor)

    then:
    connection.channel() != null
    connection.target() == '127.0.0.1:9091'
    !connection.callCredentials().isPresent()

    cleanup:
    connection?.close()

    where:
    cfg << [[insecure: true], [:], [tls: tls(skip: true)], [tls: tls(serverName: 'clouddriver.example.com')]]
  }

  def "a missing or unreadable TLS file is reported with its key"() {
    given:
    Path garbage = dir.resolve('garbage.pem')
    Files.writeString(garbage, 'not a certificate')
    Path missing = dir.resolve('missing.pem')

    when:
    ClouddriverConnection.open(config(tls: tls(settings(garbage, missing))), executor, executor)

    then:
    def e = thrown(ChannelSetupException)
    e.key() == expectedKey
    e.message.startsWith(expectedKey + ':')

    where:
    settings                                             | expectedKey
    ({ g, m -> [ca: m] })                                  | 'clouddriver.tls.cacertFile'
    ({ g, m -> [ca: g] })                                  | 'clouddriver.tls.cacertFile'
    ({ g, m -> [cert: m, key: g] })                        | 'clouddriver.tls.clientCertFile'
    ({ g, m -> [cert: g, key: m] })                        | 'clouddriver.tls.clientKeyFile'
    ({ g, m -> [cert: g, key: g] })                        | 'clouddriver.tls.clientCertFile / clientKeyFile'
    ({ g, m -> [cert: g] })                                | 'clouddriver.tls.clientKeyFile'
  }

  def "a missing token file stops the agent at start-up, naming the key and not the token"() {
    when:
    ClouddriverConnection.open(config(insecure: true,
        auth: new AuthConfig(Optional.empty(), Optional.of(dir.resolve('token')))), executor, executor)

    then:
    def e = thrown(ChannelSetupException)
    e.key() == 'clouddriver.auth.tokenFile'
    e.message.contains(dir.resolve('token').toString())
  }

  def "the token file is read again for each call, so a rotated token is used at the next connection"() {
    given:
    Path file = dir.resolve('token')
    Files.writeString(file, 'first-token\n')
    def credentials = BearerTokenCredentials.from(new AuthConfig(Optional.empty(), Optional.of(file))).get()

    expect:
    authorization(credentials) == 'Bearer first-token'

    when:
    Files.writeString(file, 'second-token')

    then:
    authorization(credentials) == 'Bearer second-token'

    when: 'the file becomes unreadable, the call fails as UNAUTHENTICATED naming the key, without the old token'
    Files.delete(file)
    def failure = failure(credentials)

    then:
    failure.code == Status.Code.UNAUTHENTICATED
    failure.description.startsWith('clouddriver.auth.tokenFile:')
    !failure.description.contains('token-')
  }

  def "a configured token is sent as it is; one that cannot be a header value is refused naming the key"() {
    expect:
    authorization(BearerTokenCredentials.from(new AuthConfig(Optional.of(' s3cret '), Optional.empty())).get()) == 'Bearer s3cret'

    when:
    BearerTokenCredentials.from(new AuthConfig(Optional.of('two\nlines'), Optional.empty()))

    then:
    def e = thrown(ChannelSetupException)
    e.key() == 'clouddriver.auth.token'
    !e.message.contains('two')
  }

  def "the channel carries the token as call credentials"() {
    given:
    def connection = ClouddriverConnection.open(config(insecure: true,
        auth: new AuthConfig(Optional.of('abc'), Optional.empty())), executor, executor)

    expect:
    connection.callCredentials().isPresent()

    cleanup:
    connection?.close()
  }

  private static String authorization(BearerTokenCredentials credentials) {
    Metadata applied = null
    Status failed = null
    credentials.applyRequestMetadata(null, { it.run() }, new CallCredentials.MetadataApplier() {
      void apply(Metadata headers) { applied = headers }
      void fail(Status status) { failed = status }
    })
    assert failed == null
    applied.get(BearerTokenCredentials.AUTHORIZATION)
  }

  private static Status failure(BearerTokenCredentials credentials) {
    Status failed = null
    credentials.applyRequestMetadata(null, { it.run() }, new CallCredentials.MetadataApplier() {
      void apply(Metadata headers) { throw new AssertionError('expected a failure') }
      void fail(Status status) { failed = status }
    })
    failed
  }
}
