package io.spinagent.agent.stream

import io.grpc.Server
import io.grpc.Status
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.Ack
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountDecisions
import io.spinagent.protocol.v1.AccountDefinition
import io.spinagent.protocol.v1.AccountHealth
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.AddAccount
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Command
import io.spinagent.protocol.v1.CommandResult
import io.spinagent.protocol.v1.Heartbeat
import io.spinagent.protocol.v1.Hello
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.ProtocolVersion
import io.spinagent.protocol.v1.RemoveAccount
import io.spinagent.protocol.v1.Role
import io.spinagent.protocol.v1.TunnelEnd
import io.spinagent.protocol.v1.TunnelFrame
import io.spinagent.protocol.v1.TunnelRequestHead
import io.spinagent.protocol.v1.UpdateAccount
import io.spinagent.protocol.v1.Welcome

import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit

/**
 * The plugin's end of the agent channel, for specs of the agent: a real gRPC server on a free
 * loopback port speaking the protocol as the plugin does, reduced to what agent specs observe. It
 * accepts every account for caching (asking for a resync), acknowledges every change, keeps the
 * latest state of each object per account, and sends commands, returning their results.
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

  ChannelServer() {
    server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
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

  @Override
  void close() {
    dropSessions()
    server.shutdownNow()
    server.awaitTermination(10, TimeUnit.SECONDS)
  }

  private static AccountDecision accept(String account) {
    AccountDecision.newBuilder().setAccount(account).setAccepted(true).setRole(Role.ROLE_CACHING)
        .setResyncRequired(true).build()
  }

  private class Session implements StreamObserver<AgentMessage> {
    final StreamObserver<PluginMessage> responses
    volatile boolean welcomed
    volatile boolean ended

    Session(StreamObserver<PluginMessage> responses) {
      this.responses = responses
    }

    synchronized void send(PluginMessage message) {
      if (!ended) {
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
          Runnable welcome = {
            send(PluginMessage.newBuilder().setWelcome(Welcome.newBuilder()
                .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1_VALUE)
                .setSessionId(UUID.randomUUID().toString()).setReplicaId('test-replica')
                .setHeartbeatIntervalSeconds(10)
                .addAllAccounts(message.hello.accountsList.collect { accept(it.name) })).build())
            welcomed = true
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
            objects.remove(it)
          }
          changed.addedList.each { accounts[it.name] = it }
          if (changed.addedCount > 0) {
            send(PluginMessage.newBuilder().setDecisions(AccountDecisions.newBuilder()
                .addAllAccounts(changed.addedList.collect { accept(it.name) })).build())
          }
          break
        case AgentMessage.BodyCase.CHANGES:
          def batch = message.changes
          def held = objects.computeIfAbsent(batch.account) { ConcurrentHashMap.newKeySet() }
          batch.changesList.each { change ->
            def key = "${change.kind.kind} ${change.namespace ? change.namespace + '/' : ''}${change.name}".toString()
            if (change.type == ChangeType.CHANGE_TYPE_DELETE) {
              held.remove(key)
            } else {
              held.add(key)
            }
          }
          changeCounts.merge(batch.account, batch.changesCount, Integer::sum)
          ack(batch.account, batch.changesList*.sequence.max())
          break
        case AgentMessage.BodyCase.RESYNC:
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
          send(PluginMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder()
              .setSentAtMillis(System.currentTimeMillis())).build())
          break
        default:
          break
      }
    }

    private void ack(String account, long sequence) {
      send(PluginMessage.newBuilder().setAck(Ack.newBuilder().setAccount(account).setSequence(sequence)).build())
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
