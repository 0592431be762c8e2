package io.spinagent.plugin.channel

import io.grpc.Status
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.protocol.v1.Role
import io.spinagent.testkit.tls.TestPki
import java.nio.file.Path
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.lang.TempDir
import spock.util.concurrent.PollingConditions

/**
 * The real agent's own TLS, client certificate and token settings against the real plugin with
 * mTLS, a subject filter and tokens; and replicas of one agent taking over from each other.
 */
class AgentCredentialsSpec extends Specification {

  @TempDir
  Path dir

  @AutoCleanup
  RealAgentFixture fixture = new RealAgentFixture()

  PollingConditions eventually = new PollingConditions(timeout: 20, delay: 0.05)

  TestPki pki = TestPki.create('SpinAgent CA')

  def "an agent with the right CA, client certificate and token streams; a wrong token is refused and retried"() {
    given:
    securePlugin()
    def client = pki.issueClient('CN=agent-eu-1,O=SpinAgent').written(dir, 'agent')
    def tls = new TlsConfig(Optional.empty(), false, Optional.of(client.certificateChain()),
        Optional.of(client.privateKey()), Optional.of(pki.writeCaCertificate(dir.resolve('ca.crt'))))

    when:
    fixture.startAgent(RealAgentFixture.agentConfig(fixture.pluginPort(), false, tls,
        new AuthConfig(Optional.of('team-a-token'), Optional.empty())), 'agent-eu-1')

    then:
    eventually.eventually {
      assert fixture.client.isConnected()
      assert fixture.client.role('prod') == Optional.of(Role.ROLE_CACHING)
    }

    when:
    fixture.outbox.put('prod', fixture.upsert('web', '{"name":"web"}'))

    then:
    eventually.eventually { assert fixture.stored().keySet() == ['web'] as Set }

    when: 'an agent presents a token the plugin does not accept'
    def intruder = fixture.newClient(RealAgentFixture.agentConfig(fixture.pluginPort(), false, tls,
        new AuthConfig(Optional.of('guessed'), Optional.empty())), 'agent-intruder', new io.spinagent.agent.stream.Outbox(1 << 20))

    then: 'it is refused with a reason, keeps retrying, and never registers'
    eventually.eventually {
      assert fixture.disconnects.count { it.code == Status.Code.UNAUTHENTICATED && it.description == 'bearer token not accepted' } >= 2
    }
    !intruder.isConnected()
    fixture.accounts.find('prod').get().standbyAgentIds().isEmpty()
  }

  def "an agent whose certificate subject the filter does not allow is refused"() {
    given:
    securePlugin()
    def client = pki.issueClient('CN=laptop,O=SpinAgent').written(dir, 'laptop')
    def tls = new TlsConfig(Optional.empty(), false, Optional.of(client.certificateChain()),
        Optional.of(client.privateKey()), Optional.of(pki.writeCaCertificate(dir.resolve('ca.crt'))))

    when:
    fixture.startAgent(RealAgentFixture.agentConfig(fixture.pluginPort(), false, tls,
        new AuthConfig(Optional.of('team-a-token'), Optional.empty())), 'laptop')

    then:
    eventually.eventually {
      assert fixture.disconnects.any {
        it.code == Status.Code.UNAUTHENTICATED &&
          it.description == "client certificate subject 'CN=laptop,O=SpinAgent' matches none of spinagent.grpc.auth.x509.filters"
      }
    }
    !fixture.client.isConnected()
    !fixture.accounts.find('prod').isPresent()
  }

  def "a standby replica takes over streaming, with a full listing, when the caching one leaves"() {
    given:
    fixture.startPlugin()
    def config = RealAgentFixture.agentConfig(fixture.pluginPort(), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty()))
    def first = fixture.newClient(config, 'replica-a', new io.spinagent.agent.stream.Outbox(1 << 20))
    eventually.eventually { assert first.role('prod') == Optional.of(Role.ROLE_CACHING) }
    def second = fixture.newClient(config, 'replica-b', new io.spinagent.agent.stream.Outbox(1 << 20))

    expect:
    eventually.eventually { assert second.role('prod') == Optional.of(Role.ROLE_STANDBY) }
    fixture.resyncsRequested == ['replica-a:prod']

    when:
    first.close()

    then:
    eventually.eventually {
      assert second.role('prod') == Optional.of(Role.ROLE_CACHING)
      assert fixture.resyncsRequested == ['replica-a:prod', 'replica-b:prod']
      assert fixture.accounts.find('prod').get().cachingAgentId() == 'replica-b'
    }
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVATING
  }

  def "an agent of another principal is refused as standby, and cannot take the account over when its agent leaves"() {
    given: 'agent-eu-1 registered prod with its certificate'
    securePlugin()
    def rightful = clientWith('CN=agent-eu-1,O=SpinAgent', 'agent-eu-1')
    eventually.eventually { assert rightful.role('prod') == Optional.of(Role.ROLE_CACHING) }

    when: "another team's agent, admitted by the subject filter, reports prod's cluster identity"
    def impostor = clientWith('CN=agent-eu-2,O=SpinAgent', 'agent-eu-2')

    then: 'it is refused, with a reason naming both principals and how to allow it, and counted'
    eventually.eventually { assert fixture.refusals.any { it.startsWith('agent-eu-2:prod: ') } }
    def reason = fixture.refusals.find { it.startsWith('agent-eu-2:prod: ') }
    reason.contains("bound to principal 'x509:CN=agent-eu-1,O=SpinAgent'")
    reason.contains("this agent's principal is 'x509:CN=agent-eu-2,O=SpinAgent'")
    reason.contains('spinagent.accounts.binding.also-allowed')
    impostor.isConnected()
    impostor.role('prod').isEmpty()
    fixture.accounts.find('prod').get().standbyAgentIds().isEmpty()
    fixture.pluginMeters.get('spinagent.accounts.claims.refused').tag('reason', 'principal').functionCounter().count() == 1

    when: 'the rightful agent leaves'
    rightful.close()

    then: 'the account waits for it, orphaned, instead of passing to the impostor'
    eventually.eventually { assert fixture.accounts.find('prod').get().state() == AccountState.ORPHANED }
    fixture.accounts.find('prod').get().cachingAgentId() == null
    impostor.role('prod').isEmpty()

    when: 'an agent with the rightful certificate comes back'
    def returning = clientWith('CN=agent-eu-1,O=SpinAgent', 'agent-eu-1')

    then: 'it serves the account again'
    eventually.eventually {
      assert returning.role('prod') == Optional.of(Role.ROLE_CACHING)
      assert fixture.accounts.find('prod').get().cachingAgentId() == 'agent-eu-1'
    }
  }

  def "a principal the operator allows stands by for a bound account and takes over; one not allowed is refused"() {
    given:
    fixture.properties.accounts.binding.alsoAllowed = [
        new SpinAgentProperties.AlsoAllowed(principal: 'x509:CN=agent-backup-[0-9]+,O=SpinAgent', accounts: 'prod')]
    securePlugin()
    def rightful = clientWith('CN=agent-eu-1,O=SpinAgent', 'agent-eu-1')
    eventually.eventually { assert rightful.role('prod') == Optional.of(Role.ROLE_CACHING) }

    when:
    def backup = clientWith('CN=agent-backup-1,O=SpinAgent', 'agent-backup-1')
    def other = clientWith('CN=agent-eu-3,O=SpinAgent', 'agent-eu-3')

    then:
    eventually.eventually {
      assert backup.role('prod') == Optional.of(Role.ROLE_STANDBY)
      assert fixture.refusals.any { it.startsWith('agent-eu-3:prod: ') }
    }
    fixture.accounts.find('prod').get().standbyAgentIds() == ['agent-backup-1']
    other.role('prod').isEmpty()

    when: 'the rightful agent leaves'
    rightful.close()

    then: 'the allowed standby streams the account'
    eventually.eventually {
      assert backup.role('prod') == Optional.of(Role.ROLE_CACHING)
      assert fixture.accounts.find('prod').get().cachingAgentId() == 'agent-backup-1'
    }
    other.role('prod').isEmpty()
  }

  private io.spinagent.agent.stream.AgentStreamClient clientWith(String subject, String agentId) {
    def client = pki.issueClient(subject).written(dir, "$agentId-${UUID.randomUUID()}")
    def tls = new TlsConfig(Optional.empty(), false, Optional.of(client.certificateChain()),
        Optional.of(client.privateKey()), Optional.of(pki.writeCaCertificate(dir.resolve('ca.crt'))))
    fixture.newClient(RealAgentFixture.agentConfig(fixture.pluginPort(), false, tls,
        new AuthConfig(Optional.of('team-a-token'), Optional.empty())), agentId, new io.spinagent.agent.stream.Outbox(1 << 20))
  }

  private void securePlugin() {
    def server = pki.issueServer('clouddriver').written(dir, 'server')
    def security = fixture.properties.grpc.security
    security.enabled = true
    security.certificateChain = server.certificateChain()
    security.privateKey = server.privateKey()
    security.trustCertCollection = pki.writeCaCertificate(dir.resolve('trusted-agents.crt'))
    security.clientAuth = SpinAgentProperties.ClientAuth.REQUIRE
    fixture.properties.grpc.auth.x509.enabled = true
    fixture.properties.grpc.auth.x509.filters = ['CN=agent-[a-z0-9-]+,O=SpinAgent']
    fixture.properties.grpc.auth.tokens.values = ['team-a-token']
    fixture.startPlugin()
  }
}
