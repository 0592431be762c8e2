package io.spinagent.plugin.channel

import com.google.protobuf.ByteString
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.agent.config.ClouddriverConfig
import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.OutboxConfig
import io.spinagent.agent.config.TlsConfig
import io.spinagent.agent.stream.AgentIdentity
import io.spinagent.agent.stream.AgentStreamClient
import io.spinagent.agent.stream.Outbox
import io.spinagent.agent.stream.StreamListener
import io.spinagent.plugin.accounts.AccountBindings
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.accounts.AgentWelcomeListener
import io.spinagent.plugin.accounts.BindingPolicy
import io.spinagent.plugin.accounts.SwitchedOffRecord
import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.InMemoryObjectStore
import io.spinagent.plugin.cache.ResumePoints
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.grpc.AgentChannel
import io.spinagent.plugin.grpc.ChannelParts
import io.spinagent.plugin.grpc.session.SessionRegistry
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ClusterIdentity
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.Role
import java.time.Clock
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/**
 * The real plugin channel (with the in-memory store as its database) and the real agent stream
 * client, connected over loopback, optionally through a TCP proxy.
 */
class RealAgentFixture implements Closeable {

  static final Kind DEPLOYMENT = Kind.newBuilder().setGroup('apps').setVersion('v1').setKind('Deployment')
      .setPlural('deployments').setNamespaced(true).build()

  final SpinAgentProperties properties = new SpinAgentProperties()
  /** Outlives plugin restarts, like Clouddriver's database. */
  final InMemoryObjectStore store = new InMemoryObjectStore()
  final SimpleMeterRegistry pluginMeters = new SimpleMeterRegistry()
  final SimpleMeterRegistry agentMeters = new SimpleMeterRegistry()
  /** "agentId:account" for every full listing an agent was asked for. */
  final List<String> resyncsRequested = new CopyOnWriteArrayList<>()
  final List<io.grpc.Status> disconnects = new CopyOnWriteArrayList<>()
  /** "agentId:account: reason" for every account the plugin refused an agent. */
  final List<String> refusals = new CopyOnWriteArrayList<>()
  private final List<AgentStreamClient> clients = new CopyOnWriteArrayList<>()
  private final List<Outbox> outboxes = new CopyOnWriteArrayList<>()
  final AtomicLong resourceVersion = new AtomicLong(1000)
  long commitDelayMillis = 0
  AccountRegistry accounts
  /** The plugin's connected agents; a fresh registry at each plugin start. */
  SessionRegistry sessions
  AgentChannel channel
  Outbox outbox
  AgentStreamClient client

  RealAgentFixture() {
    properties.grpc.address = '127.0.0.1'
    properties.grpc.port = 0
    properties.sessions.heartbeatInterval = Duration.ofSeconds(1)
  }

  /** A sink that takes {@link #commitDelayMillis} per batch before committing to the store. */
  ChangeSink sink() {
    return new ChangeSink() {
      @Override
      CompletionStage<CommitOutcome> commit(SinkBatch batch) {
        if (commitDelayMillis <= 0) {
          return store.commit(batch)
        }
        CompletableFuture.runAsync({}, CompletableFuture.delayedExecutor(commitDelayMillis, TimeUnit.MILLISECONDS))
            .thenCompose { store.commit(batch) }
      }
    }
  }

  RealAgentFixture startPlugin(int port = 0) {
    properties.grpc.port = port
    accounts = new AccountRegistry(Clock.systemUTC(), properties.accounts.gracePeriod, { [] as Set },
        AccountBindings.inMemory(), BindingPolicy.from(properties.accounts.binding), SwitchedOffRecord.NONE)
    accounts.addListener(store)
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
    while (true) {
      try {
        sessions = new SessionRegistry()
        channel = AgentChannel.startOnAgentPort(new ChannelParts(properties, 'replica-1', accounts,
            AgentWelcomeListener.NONE, sessions, sink(), ResumePoints.NONE, pluginMeters, Clock.systemUTC()))
        return this
      } catch (UncheckedIOException e) {
        // The port of a plugin just stopped may take a moment to be free again.
        if (port == 0 || System.nanoTime() > deadline) {
          throw e
        }
        Thread.sleep(100)
      }
    }
  }

  void stopPlugin() {
    channel.close()
    channel = null
  }

  int pluginPort() {
    channel.port()
  }

  RealAgentFixture startAgent(int port, long outboxBytes, String agentId = 'agent-1') {
    startAgent(agentConfig(port, true, new TlsConfig(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty()),
        new AuthConfig(Optional.empty(), Optional.empty()), outboxBytes), agentId)
  }

  RealAgentFixture startAgent(ClouddriverConfig config, String agentId = 'agent-1') {
    outbox = new Outbox(config.outbox().maxBytes())
    client = newClient(config, agentId, outbox)
    this
  }

  /** Another agent process: its own outbox and client, closed with the fixture. */
  AgentStreamClient newClient(ClouddriverConfig config, String agentId, Outbox agentOutbox) {
    def listener = new StreamListener() {
      /**
       * A decision that makes this agent stream the account asks for a listing: in version 1 with
       * resync_required, in version 2 by carrying no resume point (this fixture keeps none).
       */
      @Override
      void accountDecided(AccountDecision decision) {
        if (!decision.accepted) {
          refusals << "$agentId:${decision.account}: ${decision.reason}".toString()
        }
        if (decision.accepted && decision.role == Role.ROLE_CACHING
            && (decision.resyncRequired || decision.resumePointsCount == 0)) {
          resyncsRequested << "$agentId:${decision.account}".toString()
        }
      }

      @Override
      void disconnected(io.grpc.Status status) {
        disconnects << status
      }
    }
    def agent = AgentStreamClient.create(config, new AgentIdentity(agentId, 'test', ''), agentOutbox, listener, agentMeters)
    clients << agent
    outboxes << agentOutbox
    agent.start([account('prod')])
    agent
  }

  static ClouddriverConfig agentConfig(int port, boolean insecure, TlsConfig tls, AuthConfig auth, long outboxBytes = 1 << 20) {
    new ClouddriverConfig(new GrpcTarget('127.0.0.1', port), insecure, tls, auth,
        // gRPC raises client keepalive below 10s to 10s; the heartbeat check catches stalls sooner.
        10, 2,
        new BackoffConfig(Duration.ofMillis(50), 1.6, 0.2, Duration.ofSeconds(1)),
        new OutboxConfig(outboxBytes))
  }

  static AccountInfo account(String name) {
    AccountInfo.newBuilder().setName(name)
        .setCluster(ClusterIdentity.newBuilder().setApiServerHost('10.0.0.1:6443').setKubernetesVersion('v1.29.4'))
        .addKinds(DEPLOYMENT)
        .build()
  }

  ObjectChange upsert(String name, String json) {
    ObjectChange.newBuilder().setKind(DEPLOYMENT).setNamespace('default').setName(name).setUid("uid-$name")
        .setResourceVersion(Long.toString(resourceVersion.incrementAndGet()))
        .setType(ChangeType.CHANGE_TYPE_UPSERT).setObjectJson(ByteString.copyFromUtf8(json)).build()
  }

  ObjectChange delete(String name) {
    ObjectChange.newBuilder().setKind(DEPLOYMENT).setNamespace('default').setName(name).setUid("uid-$name")
        .setResourceVersion(Long.toString(resourceVersion.incrementAndGet()))
        .setType(ChangeType.CHANGE_TYPE_DELETE).build()
  }

  /** name -> JSON of what the plugin holds for account prod. */
  Map<String, String> stored(String account = 'prod') {
    store.objects(account).collectEntries { key, object -> [(key.name()): object.json()] }
  }

  @Override
  void close() {
    clients*.close()
    outboxes*.close()
    channel?.close()
  }
}
