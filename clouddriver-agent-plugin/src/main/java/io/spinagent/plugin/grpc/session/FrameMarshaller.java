package io.spinagent.plugin.grpc.session;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.spinagent.protocol.v1.AgentMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads agent frames into {@link InboundFrame}s, refusing oversized and unparseable ones. */
final class FrameMarshaller implements MethodDescriptor.Marshaller<InboundFrame> {

  private final int maxFrameBytes;

  FrameMarshaller(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  public InboundFrame parse(InputStream stream) {
    byte[] bytes;
    try {
      bytes = stream.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (bytes.length > maxFrameBytes) {
      return InboundFrame.refused(
          bytes.length,
          Status.RESOURCE_EXHAUSTED.withDescription(
              "frame of "
                  + bytes.length
                  + " bytes exceeds spinagent.grpc.max-inbound-message-size ("
                  + maxFrameBytes
                  + " bytes)"));
    }
    try {
      return InboundFrame.parsed(AgentMessage.parseFrom(bytes), bytes.length);
    } catch (InvalidProtocolBufferException e) {
      return InboundFrame.refused(
          bytes.length,
          Status.INVALID_ARGUMENT.withDescription(
              "frame is not a valid spinagent.v1.AgentMessage: " + e.getMessage()));
    }
  }

  @Override
  public InputStream stream(InboundFrame frame) {
    throw new UnsupportedOperationException("the plugin only receives agent frames");
  }
}
