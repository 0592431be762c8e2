package io.spinagent.plugin.grpc.session;

import io.grpc.Status;
import io.spinagent.protocol.v1.AgentMessage;

/**
 * A frame as it came off the wire: the parsed message, or why it could not be one. Parsing in the
 * session rather than in gRPC lets a bad frame end the call with a status that names the problem,
 * where gRPC would only report "Application error processing RPC".
 */
record InboundFrame(AgentMessage message, int size, Status problem) {

  static InboundFrame parsed(AgentMessage message, int size) {
    return new InboundFrame(message, size, null);
  }

  static InboundFrame refused(int size, Status problem) {
    return new InboundFrame(null, size, problem);
  }
}
