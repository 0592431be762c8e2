package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import java.time.Duration;
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
   * Sends a command; the future completes with the agent's result, or fails when the agent
   * disconnects first or {@code timeout} passes.
   */
  CompletableFuture<CommandResult> command(Command.Builder command, Duration timeout);
}
