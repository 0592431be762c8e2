package io.spinagent.plugin.tunnel.history;

import io.spinagent.common.KubernetesRequest;
import io.spinagent.plugin.tunnel.TunnelOperation;
import io.spinagent.plugin.tunnel.TunnelOperationListener;
import java.util.Objects;

/** Turns what the tunnel served into history records of this replica. */
public final class OperationRecorder implements TunnelOperationListener {

  private final OperationHistory history;
  private final String replica;

  public OperationRecorder(OperationHistory history, String replica) {
    this.history = history;
    this.replica = replica;
  }

  @Override
  public void completed(TunnelOperation operation) {
    String query = operation.query();
    history.record(
        new OperationRecord(
            operation.account(),
            operation.method(),
            KubernetesRequest.of(operation.method(), operation.path(), query).verbLabel(),
            query.isEmpty() ? operation.path() : operation.path() + "?" + query,
            operation.status(),
            operation.timeToFirstByte().toMillis(),
            operation.duration().toMillis(),
            replica,
            Objects.requireNonNullElse(operation.agentId(), ""),
            operation.startedAt()));
  }
}
