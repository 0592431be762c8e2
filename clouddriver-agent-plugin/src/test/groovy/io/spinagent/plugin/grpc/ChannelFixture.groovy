package io.spinagent.plugin.grpc

import io.grpc.ChannelCredentials
import io.grpc.InsecureChannelCredentials
import io.grpc.inprocess.InProcessChannelBuilder
import io.grpc.inprocess.InProcessServerBuilder
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.accounts.AccountBindings
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.accounts.AgentWelcomeListener
import io.spinagent.plugin.accounts.BindingPolicy
import io.spinagent.plugin.accounts.OrphanSweep
import io.spinagent.plugin.accounts.SwitchedOffRecord
import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.InMemoryObjectStore
import io.spinagent.plugin.cache.ResumePoints
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.grpc.session.SessionRegistry
import java.time.Clock

/**
 * A real agent channel with an in-memory store behind it: on a free loopback port (Netty, as in
 * production), or, for fast unit specs, on gRPC's in-process transport.
 */
class ChannelFixture implements Closeable {

  /** In-process: no sockets, and flow control exact (a side is ready only when the other asked). */
  final boolean inProcess
  private final String inProcessName = InProcessServerBuilder.generateName()

  final SpinAgentProperties properties = new SpinAgentProperties()
  final InMemoryObjectStore store = new InMemoryObjectStore()
  final SessionRegistry sessions = new SessionRegistry()
  final SimpleMeterRegistry meters = new SimpleMeterRegistry()
  ChangeSink sink = store
  ResumePoints resumePoints = ResumePoints.NONE
  AgentWelcomeListener welcomeListener = AgentWelcomeListener.NONE
  SwitchedOffRecord switchedOffRecord = SwitchedOffRecord.NONE
  AccountRegistry accounts
  AgentChannel channel
  OrphanSweep orphanSweep
  private final List<RawAgent> agents = []

  ChannelFixture(boolean inProcess = false) {
    this.inProcess = inProcess
    properties.grpc.address = '127.0.0.1'
    properties.grpc.port = 0
  }

  static ChannelFixture inProcess() {
    new ChannelFixture(true)
  }

  Clock clock = Clock.systemUTC()

  ChannelFixture start() {
    accounts = new AccountRegistry(clock, properties.accounts.gracePeriod, { [] as Set },
      AccountBindings.inMemory(), BindingPolicy.from(properties.accounts.binding), switchedOffRecord)
    accounts.addListener(store)
    def parts = new ChannelParts(properties, 'replica-under-test', accounts, welcomeListener, sessions, sink,
      resumePoints, meters, clock)
    channel = inProcess
      ? AgentChannel.start(InProcessServerBuilder.forName(inProcessName), parts)
      : AgentChannel.startOnAgentPort(parts)
    orphanSweep = new OrphanSweep(accounts, OrphanSweep.Listener.NONE, properties.accounts.gracePeriod)
    orphanSweep.start()
    this
  }

  String target() {
    "127.0.0.1:${channel.port()}"
  }

  RawAgent agent(ChannelCredentials credentials = InsecureChannelCredentials.create(), String token = null) {
    def agent = inProcess
      ? new RawAgent(InProcessChannelBuilder.forName(inProcessName).build(), token)
      : new RawAgent(target(), credentials, token)
    agents << agent
    agent
  }

  @Override
  void close() {
    agents*.close()
    orphanSweep?.stop()
    channel?.close()
  }
}
