package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import java.util.concurrent.CompletableFuture;

/**
 * An agent connected to this replica, as accounts reach it: who it is, and a way to send it a
 * command. The session layer implements it.
 */
public interface AgentLink {

  String agentId();

  /** The zone the agent said it serves; empty when it named none. */
  String zoneId();

  /**
   * Sends a command. The future completes with the agent's result whenever it comes (agents answer
   * every command, in order), or fails when the command cannot be sent (e.g. it is larger than
   * agents accept) or the agent disconnects first. How long to wait for it is the caller's choice;
   * a result that comes later still completes the future.
   */
  CompletableFuture<CommandResult> command(Command.Builder command);
}
