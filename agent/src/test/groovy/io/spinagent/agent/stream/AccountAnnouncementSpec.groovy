package io.spinagent.agent.stream

import static io.spinagent.agent.Eventually.eventually

import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.agent.config.ClouddriverConfig
import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.OutboxConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.ClusterIdentity
import io.spinagent.protocol.v1.Role
import java.time.Duration
import spock.lang.Specification

/** Accounts reach Clouddriver whenever they start, also between Hello and Welcome. */
class AccountAnnouncementSpec extends Specification {

  ChannelServer channel = new ChannelServer()
  Outbox outbox = new Outbox(1 << 20)
  AgentStreamClient client

  def cleanup() {
    client?.close()
    outbox.close()
    channel.close()
  }

  AgentStreamClient connect() {
    def config = new ClouddriverConfig(new GrpcTarget('127.0.0.1', channel.port()), true,
        new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty()), 20, 10,
        new BackoffConfig(Duration.ofMillis(100), 1.6, 0.2, Duration.ofMillis(500)), new OutboxConfig(1 << 20))
    client = AgentStreamClient.create(config, new AgentIdentity('test-agent', 'test', ''), outbox,
        new StreamListener() {}, new SimpleMeterRegistry())
    client
  }

  static AccountInfo account(String name) {
    AccountInfo.newBuilder().setName(name)
        .setCluster(ClusterIdentity.newBuilder().setApiServerHost('10.0.0.1:6443').setKubernetesVersion('v1.29.4'))
        .build()
  }

  def "an account that starts after Hello but before Welcome is announced once welcomed"() {
    given: "Clouddriver holds its Welcome back"
    channel.holdWelcomes = true
    def client = connect()
    client.start([account('early')])
    assert eventually { channel.hellos.size() == 1 }

    when: "accounts change before the Welcome arrives"
    client.updateAccounts([account('late')])
    client.decisions() // runs on the stream thread after the update: the update has been handled
    channel.releaseWelcomes()

    then: "after Welcome the agent withdraws what it stopped and announces what it started"
    eventually { channel.accounts.keySet() == ['late'] as Set }
    channel.withdrawn == ['early']
    eventually { client.role('late') == Optional.of(Role.ROLE_CACHING) }
  }
}
