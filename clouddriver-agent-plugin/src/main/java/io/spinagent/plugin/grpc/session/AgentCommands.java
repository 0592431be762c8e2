package io.spinagent.plugin.grpc.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.PluginMessage;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Command round-trips with one agent: each command sent under an id of its own, no larger than an
 * agent accepts, and completed by the agent's result for that id ({@link PendingCommands}); every
 * command still awaited fails when the session ends.
 */
final class AgentCommands {

  // The session's own log: an operator follows one agent's session under one name.
  private static final Logger log = LoggerFactory.getLogger(AgentSession.class);

  /**
   * The largest command sent to an agent: agents accept frames of up to 16 MiB from Clouddriver
   * ({@code ClouddriverConnection.MAX_INBOUND_MESSAGE_BYTES} in the agent).
   */
  static final int MAX_COMMAND_BYTES = 16 * 1024 * 1024;

  private final Supplier<String> agentId;
  private final Consumer<PluginMessage> send;
  private final PendingCommands pending = new PendingCommands();

  @GuardedBy("this")
  private boolean ended;

  /**
   * @param agentId the agent's id, for messages
   * @param send sends a frame on the session's stream
   */
  AgentCommands(Supplier<String> agentId, Consumer<PluginMessage> send) {
    this.agentId = agentId;
    this.send = send;
  }

  /**
   * Sends a command; the future completes with the agent's result, or fails when the command is
   * larger than an agent accepts or the session ends first.
   */
  CompletableFuture<CommandResult> send(Command.Builder command) {
    PendingCommands.Pending awaited = pending.register();
    synchronized (this) {
      if (ended) {
        awaited
            .result()
            .completeExceptionally(
                new IllegalStateException("agent '" + agentId.get() + "' disconnected"));
        return awaited.result();
      }
    }
    PluginMessage message =
        PluginMessage.newBuilder().setCommand(command.setCommandId(awaited.id())).build();
    int size = message.getSerializedSize();
    if (size > MAX_COMMAND_BYTES) {
      // Sent, it would end the agent's session (the agent refuses frames over its limit) and
      // every account it serves would be orphaned until it reconnects.
      awaited
          .result()
          .completeExceptionally(
              new IllegalArgumentException(
                  "the command is "
                      + size
                      + " bytes, over the "
                      + MAX_COMMAND_BYTES
                      + " bytes an agent accepts in one frame"));
      return awaited.result();
    }
    send.accept(message);
    return awaited.result();
  }

  /** The agent answered a command. */
  void answered(CommandResult result) {
    if (!pending.complete(result)) {
      log.debug(
          "Agent '{}' answered command {}, which is no longer awaited",
          agentId.get(),
          result.getCommandId());
    }
  }

  /** The session ended: every command awaited fails with {@code reason}, and so does any later. */
  void sessionEnded(String reason) {
    synchronized (this) {
      ended = true;
    }
    pending.failAll(reason);
  }
}
