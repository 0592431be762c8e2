package io.spinagent.plugin.grpc.session;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.spinagent.plugin.grpc.auth.AgentPeer;
import io.spinagent.protocol.v1.AgentChannelGrpc;
import io.spinagent.protocol.v1.PluginMessage;

/**
 * {@code AgentChannel.Connect}: every call becomes an {@link AgentSession}. The method is bound
 * with our own frame marshaller, so the session sees bad frames instead of gRPC failing the call
 * vaguely.
 */
public final class AgentChannelService {

  private AgentChannelService() {}

  public static ServerServiceDefinition definition(SessionContext context, int maxFrameBytes) {
    MethodDescriptor<InboundFrame, PluginMessage> connect =
        AgentChannelGrpc.getConnectMethod().toBuilder(
                new FrameMarshaller(maxFrameBytes),
                ProtoUtils.marshaller(PluginMessage.getDefaultInstance()))
            .build();
    return ServerServiceDefinition.builder(AgentChannelGrpc.getServiceDescriptor().getName())
        .addMethod(
            connect, ServerCalls.asyncBidiStreamingCall(response -> connect(context, response)))
        .build();
  }

  private static StreamObserver<InboundFrame> connect(
      SessionContext context, StreamObserver<PluginMessage> responseObserver) {
    ServerCallStreamObserver<PluginMessage> call =
        (ServerCallStreamObserver<PluginMessage>) responseObserver;
    // The session asks for each frame itself, so it can stop reading while its sink catches up.
    call.disableAutoRequest();
    return new AgentSession(AgentPeer.current(), call, context);
  }
}
