package io.spinagent.agent.stream

import io.grpc.CallCredentials
import io.grpc.ManagedChannel
import io.grpc.Status
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.Hello
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.ProtocolVersion
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit

/** Opens the agent stream on a channel and says Hello, as the agent does: the Welcome, or why not. */
class Handshake {

  /** The plugin's Welcome message, or the status the call ended with. */
  static Object hello(ManagedChannel channel, CallCredentials credentials = null) {
    def answer = new CompletableFuture<Object>()
    def stub = AgentChannelGrpc.newStub(channel)
    if (credentials != null) {
      stub = stub.withCallCredentials(credentials)
    }
    def requests = stub.connect(new StreamObserver<PluginMessage>() {
      @Override
      void onNext(PluginMessage message) {
        if (message.hasWelcome()) {
          answer.complete(message.welcome)
        }
      }

      @Override
      void onError(Throwable t) {
        answer.complete(Status.fromThrowable(t))
      }

      @Override
      void onCompleted() {
        answer.complete(Status.OK)
      }
    })
    requests.onNext(AgentMessage.newBuilder().setHello(Hello.newBuilder()
        .addProtocolVersions(ProtocolVersion.PROTOCOL_VERSION_1_VALUE)
        .setAgentId('spec-agent').setAgentVersion('test')).build())
    try {
      answer.get(60, TimeUnit.SECONDS)
    } finally {
      requests.onCompleted()
    }
  }
}
