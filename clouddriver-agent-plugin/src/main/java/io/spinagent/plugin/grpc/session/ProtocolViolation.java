package io.spinagent.plugin.grpc.session;

import io.grpc.Status;

/**
 * An agent broke the protocol; its session ends with {@link #status()}, other sessions carry on.
 */
final class ProtocolViolation extends RuntimeException {

  private final Status status;

  ProtocolViolation(Status status) {
    super(status.getDescription());
    this.status = status;
  }

  static ProtocolViolation invalid(String message) {
    return new ProtocolViolation(Status.INVALID_ARGUMENT.withDescription(message));
  }

  static ProtocolViolation precondition(String message) {
    return new ProtocolViolation(Status.FAILED_PRECONDITION.withDescription(message));
  }

  Status status() {
    return status;
  }
}
