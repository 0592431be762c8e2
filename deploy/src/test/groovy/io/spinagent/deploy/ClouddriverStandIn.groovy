package io.spinagent.deploy

import io.grpc.Server
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountDecisions
import io.spinagent.protocol.v1.Ack
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.Heartbeat
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.ProtocolVersion
import io.spinagent.protocol.v1.Role
import io.spinagent.protocol.v1.Welcome
import java.util.concurrent.TimeUnit

/**
 * The least of Clouddriver an agent needs to serve its accounts: a plaintext gRPC server on a free
 * loopback port that takes every account for caching and acknowledges everything (the agent watches
 * an account only once Clouddriver has accepted it).
 */
class ClouddriverStandIn implements AutoCloseable {

  private final Server server

  ClouddriverStandIn() {
    server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.loopbackAddress, 0))
        .addService(new AgentChannelGrpc.AgentChannelImplBase() {
          @Override
          StreamObserver<AgentMessage> connect(StreamObserver<PluginMessage> responses) {
            new Session(responses)
          }
        })
        .build()
        .start()
  }

  /** {@code host:port} for {@code clouddriver.grpc}. */
  String target() {
    "${InetAddress.loopbackAddress.hostAddress}:${server.port}"
  }

  @Override
  void close() {
    server.shutdownNow()
    server.awaitTermination(10, TimeUnit.SECONDS)
  }

  private static AccountDecision accept(String account) {
    AccountDecision.newBuilder().setAccount(account).setAccepted(true).setRole(Role.ROLE_CACHING)
        .setResyncRequired(true).build()
  }

  private static class Session implements StreamObserver<AgentMessage> {
    private final StreamObserver<PluginMessage> responses

    Session(StreamObserver<PluginMessage> responses) {
      this.responses = responses
    }

    synchronized void send(PluginMessage.Builder message) {
      responses.onNext(message.build())
    }

    @Override
    void onNext(AgentMessage message) {
      switch (message.bodyCase) {
        case AgentMessage.BodyCase.HELLO:
          send(PluginMessage.newBuilder().setWelcome(Welcome.newBuilder()
              .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1_VALUE).setSessionId('probes')
              .setReplicaId('stand-in').setHeartbeatIntervalSeconds(10)
              .addAllAccounts(message.hello.accountsList.collect { accept(it.name) })))
          break
        case AgentMessage.BodyCase.ACCOUNTS_CHANGED:
          if (message.accountsChanged.addedCount > 0) {
            send(PluginMessage.newBuilder().setDecisions(AccountDecisions.newBuilder()
                .addAllAccounts(message.accountsChanged.addedList.collect { accept(it.name) })))
          }
          break
        case AgentMessage.BodyCase.CHANGES:
          send(PluginMessage.newBuilder().setAck(Ack.newBuilder().setAccount(message.changes.account)
              .setSequence(message.changes.changesList*.sequence.max())))
          break
        case AgentMessage.BodyCase.RESYNC:
          send(PluginMessage.newBuilder().setAck(Ack.newBuilder().setAccount(message.resync.account)
              .setSequence(message.resync.sequence)))
          break
        case AgentMessage.BodyCase.HEARTBEAT:
          send(PluginMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(System.currentTimeMillis())))
          break
        default:
          break
      }
    }

    @Override
    void onError(Throwable t) {}

    @Override
    void onCompleted() {
      responses.onCompleted()
    }
  }
}
