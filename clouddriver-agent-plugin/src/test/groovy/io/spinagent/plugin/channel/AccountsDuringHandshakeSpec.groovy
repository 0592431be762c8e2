package io.spinagent.plugin.channel

import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.agent.stream.AgentIdentity
import io.spinagent.agent.stream.AgentStreamClient
import io.spinagent.agent.stream.Outbox
import io.spinagent.agent.stream.StreamListener
import io.spinagent.protocol.v1.Role
import io.spinagent.testkit.net.TcpProxy
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * An account that becomes ready while the agent's Hello waits for its Welcome (the usual case at
 * start: the stream connects while the account's first listing runs) is announced once the
 * Welcome arrives, not left unknown to Clouddriver until the next reconnect.
 */
class AccountsDuringHandshakeSpec extends Specification {

  @AutoCleanup
  RealAgentFixture fixture = new RealAgentFixture()

  @AutoCleanup
  TcpProxy proxy

  @AutoCleanup
  AgentStreamClient client

  @AutoCleanup
  Outbox outbox = new Outbox(1 << 20)

  PollingConditions eventually = new PollingConditions(timeout: 30, delay: 0.05)

  def "an account added between Hello and Welcome is announced after the Welcome"() {
    given: 'a plugin behind a link that holds every byte for now'
    fixture.startPlugin()
    proxy = TcpProxy.start('127.0.0.1', fixture.pluginPort())
    proxy.stall()
    def config = RealAgentFixture.agentConfig(proxy.port(), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty()))
    client = AgentStreamClient.create(config, new AgentIdentity('agent-1', 'test', ''), outbox,
        new StreamListener() {}, fixture.agentMeters)

    when: 'the agent says Hello with no account, and its account becomes ready before the Welcome'
    client.start([])
    eventually.eventually { assert proxy.acceptedConnections() == 1 }
    client.updateAccounts([RealAgentFixture.account('prod')])
    proxy.resume()

    then: 'the plugin learns of the account on the same connection, and makes the agent its caching agent'
    eventually.eventually {
      assert client.isConnected()
      assert client.role('prod') == Optional.of(Role.ROLE_CACHING)
      assert fixture.accounts.find('prod').map { it.cachingAgentId() }.orElse(null) == 'agent-1'
    }
    proxy.acceptedConnections() == 1
  }
}
