package io.spinagent.agent.stream

import io.grpc.Server
import io.grpc.ServerBuilder
import io.grpc.Status
import io.grpc.inprocess.InProcessServerBuilder
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountDecisions
import io.spinagent.protocol.v1.AccountDefinition
import io.spinagent.protocol.v1.AccountHealth
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.Ack
import io.spinagent.protocol.v1.AddAccount
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Command
import io.spinagent.protocol.v1.CommandResult
import io.spinagent.protocol.v1.Heartbeat
import io.spinagent.protocol.v1.Hello
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.ProtocolVersion
import io.spinagent.protocol.v1.RefusedChange
import io.spinagent.protocol.v1.RemoveAccount
import io.spinagent.protocol.v1.ResumePoint
import io.spinagent.protocol.v1.ResyncMarker
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.ResyncRequest
import io.spinagent.protocol.v1.Role
import io.spinagent.protocol.v1.TunnelEnd
import io.spinagent.protocol.v1.TunnelFrame
import io.spinagent.protocol.v1.TunnelRequestHead
import io.spinagent.protocol.v1.UpdateAccount
import io.spinagent.protocol.v1.WatchProgress
import io.spinagent.protocol.v1.Welcome
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit

/**
 * The plugin's end of the agent channel, for specs of the agent: a real gRPC server on a free
 * loopback port speaking the protocol as the plugin does, reduced to what agent specs observe. It
 * accepts every account for caching, commits and acknowledges every batch (changes and resync
 * markers in sequence order, sweeping at a listing's END what the listing did not send), keeps the
 * latest state of each object per account, and sends commands, returning their results.
 *
 * <p>It speaks protocol version 1 (asking for a resync of every account, as the plugin does) unless
 * {@link #protocolVersion} is 2; then it keeps the last committed WatchProgress per account and kind
 * as resume points (which outlive sessions, as the plugin's table does), returns them in its
 * decisions, asks for a resync only when {@link #resyncRequired} says so, and sends heartbeats on
 * its own every interval.
 */
class ChannelServer implements AutoCloseable {

  private final Server server
  private final List<Session> sessions = new CopyOnWriteArrayList<>()
  private final Map<String, CompletableFuture<CommandResult>> results = new ConcurrentHashMap<>()
  private int commandIds
  private final Map<Long, TunnelCall> tunnelCalls = new ConcurrentHashMap<>()
  private long tunnelIds
  private final List<Runnable> heldWelcomes = new CopyOnWriteArrayList<>()
  /** While true, Hello is not answered until {@link #releaseWelcomes}. */
  volatile boolean holdWelcomes

  /** Every Hello received, in order. */
  final List<Hello> hellos = new CopyOnWriteArrayList<>()
  /** Accounts announced and not withdrawn, by name. */
  final Map<String, AccountInfo> accounts = new ConcurrentHashMap<>()
  /** Every account name withdrawn with AccountsChanged, in order. */
  final List<String> withdrawn = new CopyOnWriteArrayList<>()
  /** The latest health each account reported. */
  final Map<String, AccountHealth> health = new ConcurrentHashMap<>()
  final Map<String, String> healthErrors = new ConcurrentHashMap<>()
  /** Per account, "Kind namespace/name" of every object it holds. */
  final Map<String, Set<String>> objects = new ConcurrentHashMap<>()
  /** Per account, how many changes arrived in all. */
  final Map<String, Integer> changeCounts = new ConcurrentHashMap<>()
  /** Per account, every change committed, in order. */
  final Map<String, List<ObjectChange>> committedChanges = new ConcurrentHashMap<>()
  /** Per account, every resync marker committed, in order. */
  final Map<String, List<ResyncMarker>> committedMarkers = new ConcurrentHashMap<>()
  /** Version 2: per account, "group/Kind" to the last committed progress, as a resume point. */
  final Map<String, Map<String, ResumePoint>> resumePoints = new ConcurrentHashMap<>()
  /** Every ChangeBatch received (committed or not), in order. */
  final List<io.spinagent.protocol.v1.ChangeBatch> batches = new CopyOnWriteArrayList<>()
  /** Every resync marker received as a frame of its own (protocol version 1), in order. */
  final List<ResyncMarker> resyncFrames = new CopyOnWriteArrayList<>()
  /** Heartbeats received from agents. */
  final java.util.concurrent.atomic.AtomicInteger heartbeatsReceived = new java.util.concurrent.atomic.AtomicInteger()
  /** Version 1: whether agents' heartbeats are answered (a busy version 1 plugin does not read them). */
  volatile boolean answerHeartbeats = true

  /** The highest protocol version this plugin speaks (1 or 2). */
  volatile int protocolVersion = ProtocolVersion.PROTOCOL_VERSION_1_VALUE
  /** The heartbeat interval Welcome announces. */
  volatile int heartbeatIntervalSeconds = 10
  /** Version 2: whether decisions ask for a complete listing of every kind. */
  volatile boolean resyncRequired
  /**
   * While true, batches are received but neither committed nor acknowledged, as by a plugin that
   * ends up dropping the session before committing them. Meant to stay on until the session ends:
   * a plugin never commits a later batch of an account after skipping an earlier one.
   */
  volatile boolean dropBatches
  /**
   * Accounts whose batches are received but not committed until the account is withdrawn (a
   * plugin discards what it has not committed of an account it lets go).
   */
  final Set<String> dropUntilWithdrawn = ConcurrentHashMap.newKeySet()
  /** While true, the plugin sends nothing at all: no heartbeats, no acks (a hung replica). */
  volatile boolean silent
  /** Names of objects the plugin commits as "not stored", with this reason, reported on the Ack. */
  final Map<String, String> refuse = new ConcurrentHashMap<>()
  /** Per account, listings between BEGIN and END: resync id to the keys sent so far. */
  private final Map<String, Map<String, Set<String>>> listings = new ConcurrentHashMap<>()
  private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor()

  /** On a free loopback port. */
  ChannelServer() {
    this(NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
  }

  /** On gRPC's in-process transport, reached with {@code InProcessChannelBuilder.forName(name)}. */
  static ChannelServer inProcess(String name) {
    new ChannelServer(InProcessServerBuilder.forName(name))
  }

  ChannelServer(ServerBuilder<?> builder) {
    server = builder
        .addService(new AgentChannelGrpc.AgentChannelImplBase() {
          @Override
          StreamObserver<AgentMessage> connect(StreamObserver<PluginMessage> responses) {
            def session = new Session(responses)
            sessions << session
            session
          }
        })
        .build()
        .start()
  }

  int port() {
    server.port
  }

  String target() {
    "${InetAddress.loopbackAddress.hostAddress}:${server.port}"
  }

  /** Sessions currently open. */
  int openSessions() {
    sessions.count { !it.ended } as int
  }

  CommandResult add(AccountDefinition.Builder account) {
    command(Command.newBuilder().setAddAccount(AddAccount.newBuilder().setAccount(account)))
  }

  CommandResult update(AccountDefinition.Builder account) {
    command(Command.newBuilder().setUpdateAccount(UpdateAccount.newBuilder().setAccount(account)))
  }

  CommandResult remove(String name) {
    command(Command.newBuilder().setRemoveAccount(RemoveAccount.newBuilder().setName(name)))
  }

  /** Sends a command on the newest open session and waits for its result. */
  CommandResult command(Command.Builder command) {
    String id
    synchronized (this) {
      id = "command-${++commandIds}"
    }
    def result = new CompletableFuture<CommandResult>()
    results[id] = result
    def session = welcomedSession()
    session.send(PluginMessage.newBuilder().setCommand(command.setCommandId(id)).build())
    result.get(30, TimeUnit.SECONDS)
  }

  /**
   * The newest open session that has been welcomed. A Hello is recorded before its Welcome goes
   * out, so a spec that has just seen the agent reconnect may get here a moment before the Welcome.
   */
  private Session welcomedSession() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
    Session session
    while ((session = sessions.reverse().find { !it.ended && it.welcomed }) == null && System.nanoTime() < deadline) {
      Thread.sleep(10)
    }
    assert session != null: 'no agent is connected'
    session
  }

  /** The answer to a Kubernetes API request relayed through the agent. */
  static class TunnelCall {
    int status
    final ByteArrayOutputStream body = new ByteArrayOutputStream()
    final CompletableFuture<TunnelCall> done = new CompletableFuture<>()
    String error

    String text() {
      body.toString('UTF-8')
    }
  }

  /** Relays a GET through the agent's tunnel for {@code account}, as Clouddriver's kubectl would. */
  TunnelCall tunnelGet(String account, String path) {
    long id
    synchronized (this) {
      id = ++tunnelIds
    }
    def call = new TunnelCall()
    tunnelCalls[id] = call
    def session = welcomedSession()
    session.send(PluginMessage.newBuilder().setTunnel(TunnelFrame.newBuilder().setStreamId(id)
        .setRequestHead(TunnelRequestHead.newBuilder().setAccount(account).setMethod('GET').setPath(path)
            .setInitialWindow(16 << 20))).build())
    session.send(PluginMessage.newBuilder().setTunnel(TunnelFrame.newBuilder().setStreamId(id)
        .setEnd(TunnelEnd.getDefaultInstance())).build())
    call.done.get(30, TimeUnit.SECONDS)
  }

  /** Ends every open session as a failing Clouddriver replica would. */
  void dropSessions() {
    sessions.findAll { !it.ended }.each { it.fail(Status.UNAVAILABLE.withDescription('test: replica gone')) }
  }

  void releaseWelcomes() {
    holdWelcomes = false
    heldWelcomes.each { it.run() }
    heldWelcomes.clear()
  }

  Set<String> objects(String account) {
    objects.getOrDefault(account, [] as Set)
  }

  /** Version 2: asks the newest session's agent for a complete listing of some kinds. */
  void requestResync(String account, List<Kind> kinds, String reason = 'test') {
    welcomedSession().send(PluginMessage.newBuilder().setResyncRequest(ResyncRequest.newBuilder()
        .setAccount(account).addAllKinds(kinds).setReason(reason)).build())
  }

  /** Sends decisions on the newest session. */
  void decide(AccountDecision... decisions) {
    welcomedSession().send(PluginMessage.newBuilder().setDecisions(AccountDecisions.newBuilder()
        .addAllAccounts(decisions as List)).build())
  }

  /** Sends a frame that is not a heartbeat: an acknowledgement that acknowledges nothing. */
  void sendIdleAck() {
    welcomedSession().send(PluginMessage.newBuilder().setAck(Ack.newBuilder().setAccount('no-such-account')).build())
  }

  /** Sessions opened so far. */
  int sessionCount() {
    sessions.size()
  }

  /** The protocol version the newest welcomed session speaks. */
  int sessionVersion() {
    welcomedSession().version
  }

  @Override
  void close() {
    heartbeats.shutdownNow()
    dropSessions()
    server.shutdownNow()
    server.awaitTermination(10, TimeUnit.SECONDS)
  }

  private AccountDecision accept(String account, int version) {
    def decision = AccountDecision.newBuilder().setAccount(account).setAccepted(true).setRole(Role.ROLE_CACHING)
    if (version >= 2) {
      decision.setResyncRequired(resyncRequired)
      decision.addAllResumePoints(resumePoints.getOrDefault(account, [:]).values())
    } else {
      decision.setResyncRequired(true)
    }
    decision.build()
  }

  static String key(ObjectChange change) {
    "${change.kind.kind} ${change.namespace ? change.namespace + '/' : ''}${change.name}".toString()
  }

  static String groupKind(Kind kind) {
    "${kind.group}/${kind.kind}".toString()
  }

  /** Commits a run of entries of one account in sequence order; returns the refused changes. */
  private synchronized List<RefusedChange> commit(String account, List<Object> entries) {
    def held = objects.computeIfAbsent(account) { ConcurrentHashMap.newKeySet() }
    def open = listings.computeIfAbsent(account) { new ConcurrentHashMap<>() }
    List<RefusedChange> refused = []
    entries.sort { it.sequence }.each { entry ->
      if (entry instanceof ObjectChange) {
        def change = entry as ObjectChange
        open.values().each { it << key(change) }
        if (refuse.containsKey(change.name)) {
          refused << RefusedChange.newBuilder().setSequence(change.sequence).setKind(change.kind)
              .setNamespace(change.namespace).setName(change.name).setReason(refuse[change.name]).build()
          return
        }
        committedChanges.computeIfAbsent(account) { new CopyOnWriteArrayList<>() } << change
        if (change.type == ChangeType.CHANGE_TYPE_DELETE) {
          held.remove(key(change))
        } else {
          held.add(key(change))
        }
      } else if (entry instanceof ResyncMarker) {
        def marker = entry as ResyncMarker
        committedMarkers.computeIfAbsent(account) { new CopyOnWriteArrayList<>() } << marker
        if (marker.phase == ResyncPhase.RESYNC_PHASE_BEGIN) {
          open[marker.resyncId] = ConcurrentHashMap.newKeySet()
        } else {
          def listed = open.remove(marker.resyncId)
          if (listed != null) {
            held.removeIf { it.startsWith(marker.kind.kind + ' ') && !listed.contains(it) }
          }
        }
      } else if (entry instanceof WatchProgress) {
        def progress = entry as WatchProgress
        resumePoints.computeIfAbsent(account) { new ConcurrentHashMap<>() }[groupKind(progress.kind)] =
            ResumePoint.newBuilder().setKind(progress.kind).setResourceVersion(progress.resourceVersion)
                .setCommittedAtMillis(System.currentTimeMillis()).build()
      }
    }
    refused
  }

  private class Session implements StreamObserver<AgentMessage> {
    final StreamObserver<PluginMessage> responses
    volatile boolean welcomed
    volatile boolean ended
    volatile int version

    Session(StreamObserver<PluginMessage> responses) {
      this.responses = responses
    }

    synchronized void send(PluginMessage message) {
      if (!ended && !silent) {
        responses.onNext(message)
      }
    }

    synchronized void fail(Status status) {
      if (!ended) {
        ended = true
        responses.onError(status.asRuntimeException())
      }
    }

    @Override
    void onNext(AgentMessage message) {
      switch (message.bodyCase) {
        case AgentMessage.BodyCase.HELLO:
          hellos << message.hello
          message.hello.accountsList.each { accounts[it.name] = it }
          version = message.hello.protocolVersionsList.findAll { it <= protocolVersion }.max() ?: 0
          Runnable welcome = {
            send(PluginMessage.newBuilder().setWelcome(Welcome.newBuilder()
                .setProtocolVersion(version)
                .setSessionId(UUID.randomUUID().toString()).setReplicaId('test-replica')
                .setHeartbeatIntervalSeconds(heartbeatIntervalSeconds)
                .addAllAccounts(message.hello.accountsList.collect { accept(it.name, version) })).build())
            welcomed = true
            if (version >= 2) {
              heartbeats.scheduleAtFixedRate({
                if (!ended) {
                  send(PluginMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder()
                      .setSentAtMillis(System.currentTimeMillis())).build())
                }
              }, heartbeatIntervalSeconds, heartbeatIntervalSeconds, TimeUnit.SECONDS)
            }
          }
          if (holdWelcomes) {
            heldWelcomes << welcome
          } else {
            welcome.run()
          }
          break
        case AgentMessage.BodyCase.ACCOUNTS_CHANGED:
          def changed = message.accountsChanged
          changed.removedList.each {
            withdrawn << it
            accounts.remove(it)
            dropUntilWithdrawn.remove(it)
            if (version < 2) {
              // A version 2 plugin keeps the rows and resume points of a withdrawn account for when
              // it is announced again.
              objects.remove(it)
            }
          }
          changed.addedList.each { accounts[it.name] = it }
          if (changed.addedCount > 0) {
            send(PluginMessage.newBuilder().setDecisions(AccountDecisions.newBuilder()
                .addAllAccounts(changed.addedList.collect { accept(it.name, version) })).build())
          }
          break
        case AgentMessage.BodyCase.CHANGES:
          def batch = message.changes
          batches << batch
          if (dropBatches || dropUntilWithdrawn.contains(batch.account)) {
            break
          }
          changeCounts.merge(batch.account, batch.changesCount, Integer::sum)
          List<Object> entries = []
          entries.addAll(batch.changesList)
          entries.addAll(batch.markersList)
          entries.addAll(batch.progressList)
          def refused = commit(batch.account, entries)
          ack(batch.account, entries*.sequence.max(), refused)
          break
        case AgentMessage.BodyCase.RESYNC:
          resyncFrames << message.resync
          if (dropBatches) {
            break
          }
          commit(message.resync.account, [message.resync])
          ack(message.resync.account, message.resync.sequence)
          break
        case AgentMessage.BodyCase.COMMAND_RESULT:
          results[message.commandResult.commandId]?.complete(message.commandResult)
          break
        case AgentMessage.BodyCase.ACCOUNT_STATUS:
          health[message.accountStatus.account] = message.accountStatus.health
          healthErrors[message.accountStatus.account] = message.accountStatus.error
          break
        case AgentMessage.BodyCase.TUNNEL:
          def frame = message.tunnel
          def call = tunnelCalls[frame.streamId]
          if (call == null) {
            break
          }
          switch (frame.frameCase) {
            case TunnelFrame.FrameCase.RESPONSE_HEAD:
              call.status = frame.responseHead.status
              break
            case TunnelFrame.FrameCase.BODY:
              frame.body.writeTo(call.body)
              break
            case TunnelFrame.FrameCase.END:
              call.error = frame.end.error
              call.done.complete(call)
              break
            case TunnelFrame.FrameCase.CANCEL:
              call.error = frame.cancel.reason
              call.done.complete(call)
              break
            default:
              break
          }
          break
        case AgentMessage.BodyCase.HEARTBEAT:
          heartbeatsReceived.incrementAndGet()
          if (version < 2 && answerHeartbeats) {
            // A version 1 plugin answers heartbeats; a version 2 one sends its own.
            send(PluginMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder()
                .setSentAtMillis(System.currentTimeMillis())).build())
          }
          break
        default:
          break
      }
    }

    private void ack(String account, long sequence, List<RefusedChange> refused = []) {
      send(PluginMessage.newBuilder().setAck(Ack.newBuilder().setAccount(account).setSequence(sequence)
          .addAllRefused(refused)).build())
    }

    @Override
    void onError(Throwable t) {
      ended = true
    }

    @Override
    void onCompleted() {
      synchronized (this) {
        if (!ended) {
          ended = true
          responses.onCompleted()
        }
      }
    }
  }
}
