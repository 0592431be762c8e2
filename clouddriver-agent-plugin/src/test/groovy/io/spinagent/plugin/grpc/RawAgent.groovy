package io.spinagent.plugin.grpc

import io.grpc.CallCredentials
import io.grpc.ChannelCredentials
import io.grpc.Grpc
import io.grpc.InsecureChannelCredentials
import io.grpc.ManagedChannel
import io.grpc.Metadata
import io.grpc.Status
import io.grpc.stub.ClientCallStreamObserver
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.ChangeBatch
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ClusterIdentity
import io.spinagent.protocol.v1.Hello
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.ResyncMarker
import io.spinagent.protocol.v1.ResyncPhase

import java.util.concurrent.BlockingQueue
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executor
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * A hand-driven agent for plugin-side specs: it speaks the protocol frame by frame through the
 * generated stub over a real socket, so specs can send exactly the frames (good or bad) they test.
 */
class RawAgent implements Closeable {

  static final Kind DEPLOYMENT = Kind.newBuilder()
    .setGroup('apps').setVersion('v1').setKind('Deployment').setPlural('deployments').setNamespaced(true).build()

  final ManagedChannel channel
  final BlockingQueue<PluginMessage> received = new LinkedBlockingQueue<>()
  final CompletableFuture<Status> closed = new CompletableFuture<>()
  private final ClientCallStreamObserver<AgentMessage> outbound

  RawAgent(String target, ChannelCredentials credentials = InsecureChannelCredentials.create(), String token = null) {
    this(Grpc.newChannelBuilder(target, credentials).build(), token)
  }

  /** An agent on {@code channel}, e.g. an in-process one; the agent closes it. */
  RawAgent(ManagedChannel channel, String token = null) {
    this.channel = channel
    def stub = AgentChannelGrpc.newStub(channel)
    if (token != null) {
      stub = stub.withCallCredentials(bearer(token))
    }
    outbound = (ClientCallStreamObserver<AgentMessage>) stub.connect(new StreamObserver<PluginMessage>() {
      void onNext(PluginMessage message) { received.add(message) }
      void onError(Throwable error) { closed.complete(Status.fromThrowable(error)) }
      void onCompleted() { closed.complete(Status.OK) }
    })
  }

  static AccountInfo account(String name, String host = 'https://10.0.0.1:6443', String fingerprint = 'ab' * 32, List<Kind> kinds = [DEPLOYMENT]) {
    AccountInfo.newBuilder()
      .setName(name)
      .setCluster(ClusterIdentity.newBuilder().setApiServerHost(host).setCaFingerprintSha256(fingerprint).setKubernetesVersion('v1.29.4'))
      .addAllKinds(kinds)
      .build()
  }

  RawAgent hello(String agentId, List<AccountInfo> accounts, List<Integer> versions = [1]) {
    send(AgentMessage.newBuilder().setHello(Hello.newBuilder()
      .setAgentId(agentId).setAgentVersion('test').addAllProtocolVersions(versions).addAllAccounts(accounts)).build())
  }

  /**
   * Whether the plugin asks for more frames: on the in-process transport, false exactly when the
   * plugin has stopped reading (every frame it asked for was delivered).
   */
  boolean ready() {
    outbound.isReady()
  }

  RawAgent send(AgentMessage message) {
    outbound.onNext(message)
    this
  }

  RawAgent upsert(String account, long sequence, String name, String resourceVersion = "$sequence", String json = null) {
    changes(account, [change(sequence, name, ChangeType.CHANGE_TYPE_UPSERT, resourceVersion,
      json ?: """{"metadata":{"name":"$name","resourceVersion":"$resourceVersion"}}""")])
  }

  RawAgent delete(String account, long sequence, String name, String resourceVersion = "$sequence") {
    changes(account, [change(sequence, name, ChangeType.CHANGE_TYPE_DELETE, resourceVersion, null)])
  }

  RawAgent changes(String account, List<ObjectChange> changes) {
    send(AgentMessage.newBuilder().setChanges(ChangeBatch.newBuilder().setAccount(account).addAllChanges(changes)).build())
  }

  RawAgent resync(String account, long sequence, ResyncPhase phase, String resyncId = 'r1', Kind kind = DEPLOYMENT) {
    send(AgentMessage.newBuilder().setResync(ResyncMarker.newBuilder()
      .setAccount(account).setKind(kind).setPhase(phase).setSequence(sequence).setResyncId(resyncId)).build())
  }

  static ObjectChange change(long sequence, String name, ChangeType type, String resourceVersion, String json) {
    def builder = ObjectChange.newBuilder().setSequence(sequence).setKind(DEPLOYMENT).setNamespace('default')
      .setName(name).setUid("uid-$name").setResourceVersion(resourceVersion).setType(type)
    if (json != null) {
      builder.setObjectJson(com.google.protobuf.ByteString.copyFromUtf8(json))
    }
    builder.build()
  }

  /** The highest acknowledgement seen so far per account, including ones skipped by {@link #next}. */
  final Map<String, Long> acknowledged = [:]

  private PluginMessage poll() {
    def message = received.poll(100, TimeUnit.MILLISECONDS)
    if (message?.hasAck()) {
      acknowledged.merge(message.ack.account, message.ack.sequence, Math::max)
    }
    message
  }

  /** The next frame of the given kind, skipping others (e.g. heartbeats); fails after 10 s. */
  PluginMessage next(PluginMessage.BodyCase kind) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
    while (System.nanoTime() < deadline) {
      def message = poll()
      if (message?.bodyCase == kind) {
        return message
      }
      if (closed.isDone() && received.isEmpty()) {
        throw new AssertionError("stream ended with ${closed.get()} while waiting for $kind")
      }
    }
    throw new AssertionError("no $kind frame within 10 s")
  }

  /** Waits until {@code account} is acknowledged up to at least {@code sequence}; returns the ack. */
  long awaitAck(String account, long sequence) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
    while (System.nanoTime() < deadline) {
      if (acknowledged.getOrDefault(account, 0L) >= sequence) {
        return acknowledged[account]
      }
      poll()
    }
    throw new AssertionError("no ack of $account up to $sequence within 10 s")
  }

  Status awaitClosed() {
    closed.get(10, TimeUnit.SECONDS)
  }

  /** Whether the plugin ended the stream. */
  boolean hasEnded() {
    closed.isDone()
  }

  void complete() {
    outbound.onCompleted()
  }

  @Override
  void close() {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
  }

  private static CallCredentials bearer(String token) {
    new CallCredentials() {
      void applyRequestMetadata(CallCredentials.RequestInfo info, Executor executor, CallCredentials.MetadataApplier applier) {
        def headers = new Metadata()
        headers.put(Metadata.Key.of('authorization', Metadata.ASCII_STRING_MARSHALLER), "Bearer $token".toString())
        applier.apply(headers)
      }
    }
  }
}
