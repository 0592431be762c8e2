package io.spinagent.plugin.grpc

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.read.ListAppender
import io.grpc.ChannelCredentials
import io.grpc.InsecureChannelCredentials
import io.grpc.Status
import io.grpc.TlsChannelCredentials
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.protocol.v1.Role
import io.spinagent.testkit.tls.TestPki
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.FileTime
import java.time.Instant
import org.slf4j.LoggerFactory
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.lang.TempDir
import spock.lang.Unroll

class ChannelSecuritySpec extends Specification {

  @TempDir
  Path dir

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  static TestPki pki = TestPki.create('SpinAgent Test CA')
  static TestPki otherPki = TestPki.create('Some Other CA')

  def "over TLS an agent that trusts the plugin's CA connects; a plaintext agent does not"() {
    given:
    tls(SpinAgentProperties.ClientAuth.NONE)
    fixture.start()

    expect:
    connects(trusting())
    refusedBy(InsecureChannelCredentials.create()).code == Status.Code.UNAVAILABLE
  }

  def "with client auth REQUIRE only agents with a certificate from the trusted CA get in"() {
    given:
    tls(SpinAgentProperties.ClientAuth.REQUIRE)
    fixture.start()

    expect:
    connects(trusting(pki.issueClient('CN=agent-1,O=SpinAgent')))
    refusedBy(trusting()).code == Status.Code.UNAVAILABLE
    refusedBy(trusting(otherPki.issueClient('CN=agent-1,O=SpinAgent'))).code == Status.Code.UNAVAILABLE
  }

  @Unroll
  def "subject filters admit '#subject': #admitted"() {
    given:
    tls(SpinAgentProperties.ClientAuth.REQUIRE)
    fixture.properties.grpc.auth.x509.enabled = true
    fixture.properties.grpc.auth.x509.filters = ['CN=agent-[a-z0-9-]+,O=SpinAgent']
    fixture.start()
    def credentials = trusting(pki.issueClient(subject))

    expect:
    if (admitted) {
      assert connects(credentials)
    } else {
      def status = refusedBy(credentials)
      assert status.code == Status.Code.UNAUTHENTICATED
      assert status.description == "client certificate subject '$subject' matches none of spinagent.grpc.auth.x509.filters"
    }

    where:
    subject                         || admitted
    'CN=agent-eu-1,O=SpinAgent'     || true
    'CN=agent-eu-1,O=Intruders'     || false
    'CN=clouddriver,O=SpinAgent'    || false
  }

  def "with tokens configured an agent needs a valid bearer token"() {
    given:
    fixture.properties.grpc.auth.tokens.values = ['s3cret-token']
    fixture.start()

    expect:
    connects(InsecureChannelCredentials.create(), 's3cret-token')
    refusedBy(InsecureChannelCredentials.create(), null).description == 'no bearer token (spinagent.grpc.auth.tokens is configured)'
    refusedBy(InsecureChannelCredentials.create(), 'guess').description == 'bearer token not accepted'
    refusedBy(InsecureChannelCredentials.create(), 'guess').code == Status.Code.UNAUTHENTICATED
  }

  def "a token file is re-read when it changes, without a restart"() {
    given:
    def tokens = dir.resolve('tokens')
    Files.writeString(tokens, '# agents of team a\nfirst-token\n')
    fixture.properties.grpc.auth.tokens.file = tokens
    fixture.start()

    expect:
    connects(InsecureChannelCredentials.create(), 'first-token')

    when:
    Files.writeString(tokens, 'second-token\n')
    Files.setLastModifiedTime(tokens, FileTime.from(Instant.now().plusSeconds(5)))

    then:
    connects(InsecureChannelCredentials.create(), 'second-token')
    refusedBy(InsecureChannelCredentials.create(), 'first-token').description == 'bearer token not accepted'
  }

  def "a named token gives its agents an identity that outlives the token's rotation; another token's agents are refused the account"() {
    given:
    def tokens = dir.resolve('tokens')
    Files.writeString(tokens, '# name, token\nteam-a first-token\nteam-b   b-token\nshared-token\n')
    fixture.properties.grpc.auth.tokens.file = tokens
    fixture.start()
    def teamA = fixture.agent(InsecureChannelCredentials.create(), 'first-token')
    teamA.hello('agent-a', [account('prod')]).next(WELCOME)

    when: "team B's agent and an agent with the unnamed token report prod's cluster identity"
    def teamB = fixture.agent(InsecureChannelCredentials.create(), 'b-token')
    def teamBDecision = teamB.hello('agent-b', [account('prod')]).next(WELCOME).welcome.getAccounts(0)
    def unnamed = fixture.agent(InsecureChannelCredentials.create(), 'shared-token')
    def unnamedDecision = unnamed.hello('agent-c', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then: 'both are refused, the reason naming principals and never a token'
    !teamBDecision.accepted
    teamBDecision.reason.contains("bound to principal 'token:team-a'")
    teamBDecision.reason.contains("this agent's principal is 'token:team-b'")
    !unnamedDecision.accepted
    unnamedDecision.reason.contains("this agent's principal is 'token:sha256:${sha256('shared-token').take(16)}'")
    [teamBDecision, unnamedDecision]*.reason.every { !it.contains('first-token') && !it.contains('b-token') && !it.contains('shared-token') }
    fixture.sessions.find('agent-b').get().connectedAgent().principal() == 'token:team-b'
    fixture.accounts.find('prod').get().standbyAgentIds().isEmpty()
    fixture.meters.get('spinagent.accounts.claims.refused').tag('reason', 'principal').functionCounter().count() == 2

    when: "team A's token is rotated, and a replica of its agent connects with the new one"
    Files.writeString(tokens, 'team-a second-token\nteam-b b-token\n')
    Files.setLastModifiedTime(tokens, FileTime.from(Instant.now().plusSeconds(5)))
    def rotated = fixture.agent(InsecureChannelCredentials.create(), 'second-token')
    def rotatedDecision = rotated.hello('agent-a-rotated', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then: 'it keeps its identity, and with it the account'
    rotatedDecision.accepted
    rotatedDecision.role == Role.ROLE_STANDBY
    fixture.sessions.find('agent-a-rotated').get().connectedAgent().principal() == 'token:team-a'
  }

  def "with binding off, an agent of another principal stands by as before"() {
    given:
    fixture.properties.grpc.auth.tokens.values = ['team-a a-token', 'team-b b-token']
    fixture.properties.accounts.binding.enabled = false
    fixture.start()
    fixture.agent(InsecureChannelCredentials.create(), 'a-token').hello('agent-a', [account('prod')]).next(WELCOME)

    when:
    def decision = fixture.agent(InsecureChannelCredentials.create(), 'b-token')
        .hello('agent-b', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then:
    decision.accepted
    decision.role == Role.ROLE_STANDBY
  }

  def "without credentials every agent is 'anonymous', which the plugin says once when it starts"() {
    given:
    def appender = new ListAppender<ILoggingEvent>()
    def logger = LoggerFactory.getLogger(AgentChannel) as Logger
    appender.start()
    logger.addAppender(appender)

    when:
    fixture.start()
    fixture.agent().hello('agent-a', [account('prod')]).next(WELCOME)
    def second = fixture.agent().hello('agent-b', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then: 'agents without credentials cannot be told apart, so they share accounts'
    second.accepted
    second.role == Role.ROLE_STANDBY
    fixture.sessions.find('agent-b').get().connectedAgent().principal() == 'anonymous'
    def warnings = appender.list.findAll { it.level == Level.WARN && it.formattedMessage.contains("their principal is 'anonymous'") }
    warnings.size() == 1
    warnings[0].formattedMessage.contains('client-auth is NONE')

    cleanup:
    logger.detachAppender(appender)
  }

  @Unroll
  def "a token entry '#entry' stops the plugin from starting with a message that names it and not the token"() {
    given:
    fixture.properties.grpc.auth.tokens.values = ['fine-token', entry]

    when:
    fixture.start()

    then:
    def e = thrown(IllegalStateException)
    e.message == message
    !e.message.contains('s3cret')

    where:
    entry                      || message
    'team a s3cret'            || "spinagent.grpc.auth.tokens.values[1]: expected a token, or a name and a token separated by whitespace; found 3 fields"
    's3cret:x team-a'          || "spinagent.grpc.auth.tokens.values[1]: a token's name (the first of the two fields) may hold only letters, digits, '.', '_', '@' and '-', starting with a letter or digit"
    'team-a fine-token'        || "one token is listed as 'token:sha256:${sha256('fine-token').take(16)}' and as 'token:team-a': give each token one name"
  }

  def "rotated server certificate files are picked up without a restart"() {
    given:
    def rotatedPki = TestPki.create('Rotated CA')
    tls(SpinAgentProperties.ClientAuth.NONE)
    fixture.properties.grpc.security.reloadInterval = java.time.Duration.ofMillis(200)
    fixture.start()

    expect:
    connects(trusting())
    refusedBy(trusting(null, rotatedPki)).code == Status.Code.UNAVAILABLE

    when:
    rotatedPki.issueServer('clouddriver').written(dir, 'server')

    then:
    new spock.util.concurrent.PollingConditions(timeout: 10).eventually {
      assert connects(trusting(null, rotatedPki))
    }
  }

  def "TLS settings that cannot work stop the plugin from starting, naming the key"() {
    given:
    fixture.properties.grpc.security.enabled = true
    fixture.properties.grpc.security.privateKey = dir.resolve('missing.key')

    when:
    fixture.start()

    then:
    def e = thrown(IllegalStateException)
    e.message == 'spinagent.grpc.security.certificate-chain is required when spinagent.grpc.security is enabled'
  }

  private static String sha256(String text) {
    java.security.MessageDigest.getInstance('SHA-256').digest(text.getBytes('UTF-8')).encodeHex().toString()
  }

  private void tls(SpinAgentProperties.ClientAuth clientAuth) {
    def server = pki.issueServer('clouddriver').written(dir, 'server')
    def security = fixture.properties.grpc.security
    security.enabled = true
    security.certificateChain = server.certificateChain()
    security.privateKey = server.privateKey()
    security.trustCertCollection = pki.writeCaCertificate(dir.resolve('ca.crt'))
    security.clientAuth = clientAuth
  }

  private ChannelCredentials trusting(TestPki.Issued client = null, TestPki ca = pki) {
    def builder = TlsChannelCredentials.newBuilder().trustManager(ca.writeCaCertificate(dir.resolve("trust-${UUID.randomUUID()}.crt")).toFile())
    if (client != null) {
      def files = client.written(dir, "client-${UUID.randomUUID()}")
      builder.keyManager(files.certificateChain().toFile(), files.privateKey().toFile())
    }
    builder.build()
  }

  private boolean connects(ChannelCredentials credentials, String token = null) {
    def agent = fixture.agent(credentials, token)
    try {
      agent.hello("agent-${UUID.randomUUID()}", [account("acct-${UUID.randomUUID().toString().take(8)}")])
      agent.next(WELCOME).welcome.protocolVersion == 1
    } finally {
      agent.close()
    }
  }

  private Status refusedBy(ChannelCredentials credentials, String token = null) {
    def agent = fixture.agent(credentials, token)
    agent.hello("agent-${UUID.randomUUID()}", [account('refused')])
    agent.awaitClosed()
  }
}
