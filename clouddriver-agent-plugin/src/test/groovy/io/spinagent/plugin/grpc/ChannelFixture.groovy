package io.spinagent.plugin.grpc

import io.grpc.ChannelCredentials
import io.grpc.InsecureChannelCredentials
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.accounts.AccountBindings
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.accounts.BindingPolicy
import io.spinagent.plugin.accounts.AgentWelcomeListener
import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.InMemoryObjectStore
import io.spinagent.plugin.cache.ResumePoints
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.grpc.session.SessionRegistry

import java.time.Clock

/** A real agent channel on a free loopback port, with an in-memory store behind it. */
class ChannelFixture implements Closeable {

  final SpinAgentProperties properties = new SpinAgentProperties()
  final InMemoryObjectStore store = new InMemoryObjectStore()
  final SessionRegistry sessions = new SessionRegistry()
  final SimpleMeterRegistry meters = new SimpleMeterRegistry()
  ChangeSink sink = store
  ResumePoints resumePoints = ResumePoints.NONE
  AccountRegistry accounts
  AgentChannel channel
  private final List<RawAgent> agents = []

  ChannelFixture() {
    properties.grpc.address = '127.0.0.1'
    properties.grpc.port = 0
  }

  ChannelFixture start() {
    accounts = new AccountRegistry(Clock.systemUTC(), properties.accounts.gracePeriod, { false },
      AccountBindings.inMemory(), BindingPolicy.from(properties.accounts.binding))
    accounts.addListener(store)
    channel = AgentChannel.start(properties, 'replica-under-test', accounts, AgentWelcomeListener.NONE, sessions, sink, resumePoints, meters, Clock.systemUTC())
    this
  }

  String target() {
    "127.0.0.1:${channel.port()}"
  }

  RawAgent agent(ChannelCredentials credentials = InsecureChannelCredentials.create(), String token = null) {
    def agent = new RawAgent(target(), credentials, token)
    agents << agent
    agent
  }

  @Override
  void close() {
    agents*.close()
    channel?.close()
  }
}
