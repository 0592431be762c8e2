package io.spinagent.deploy.promql

/** An expression PromQL refuses: the message starts with line:column of the problem. */
final class PromQLException extends IllegalArgumentException {

  PromQLException(String message) {
    super(message)
  }
}
