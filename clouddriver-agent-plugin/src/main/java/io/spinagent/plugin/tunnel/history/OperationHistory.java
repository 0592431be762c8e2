package io.spinagent.plugin.tunnel.history;

/** Where served operations are kept, and read back. */
public interface OperationHistory extends AutoCloseable {

  /** Keeps {@code record} if it can, without ever waiting: a record it cannot take is dropped. */
  void record(OperationRecord record);

  OperationPage find(OperationQuery query);

  @Override
  void close();
}
