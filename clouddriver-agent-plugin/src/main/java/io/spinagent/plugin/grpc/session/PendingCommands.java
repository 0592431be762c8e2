package io.spinagent.plugin.grpc.session;

import io.spinagent.protocol.v1.CommandResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The commands sent to one agent that await its result, by command id: each completes with the
 * agent's result, or fails when the session ends first (or the caller's timeout passes).
 */
final class PendingCommands {

  private final Map<String, CompletableFuture<CommandResult>> awaited = new ConcurrentHashMap<>();

  /** A new command id, and the result it awaits; forgotten once the result completes. */
  Pending register() {
    String id = UUID.randomUUID().toString();
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    awaited.put(id, result);
    CompletableFuture<?> unused = result.whenComplete((r, e) -> awaited.remove(id));
    return new Pending(id, result);
  }

  /** The agent answered; false when the command is no longer awaited. */
  boolean complete(CommandResult result) {
    CompletableFuture<CommandResult> pending = awaited.get(result.getCommandId());
    if (pending == null) {
      return false;
    }
    pending.complete(result);
    return true;
  }

  /** The session ended: every command still awaited fails with {@code reason}. */
  void failAll(String reason) {
    List.copyOf(awaited.values())
        .forEach(pending -> pending.completeExceptionally(new IllegalStateException(reason)));
  }

  record Pending(String id, CompletableFuture<CommandResult> result) {}
}
