package io.spinagent.plugin.accounts

import io.spinagent.protocol.v1.Command
import io.spinagent.protocol.v1.CommandResult

import java.util.concurrent.CompletableFuture

/**
 * An agent as accounts reach it, held by the spec: every command it is sent is recorded, and its
 * answer waits until the spec gives it ({@link #accept}, {@link #refuse}, {@link #disconnect}),
 * unless {@link #answerAtOnce} says how the agent answers as soon as a command arrives.
 */
class RecordingAgentLink implements AgentLink {

  static final CommandResult OK = CommandResult.newBuilder().setOk(true).build()

  final String agentId
  final String zoneId

  /** Each command sent, in order, with the answer the agent gives it. */
  final List<Sent> sent = []

  /** How the agent answers each command as it arrives; null: the spec answers. */
  Closure<CommandResult> answerAtOnce

  RecordingAgentLink(String agentId, String zoneId = '') {
    this.agentId = agentId
    this.zoneId = zoneId
  }

  /** An agent that takes every command at once. */
  static RecordingAgentLink accepting(String agentId, String zoneId = '') {
    def agent = new RecordingAgentLink(agentId, zoneId)
    agent.answerAtOnce = { Command command -> OK }
    agent
  }

  /** An agent that refuses every command at once, with {@code reason}. */
  static RecordingAgentLink refusing(String agentId, String reason, String zoneId = '') {
    def agent = new RecordingAgentLink(agentId, zoneId)
    agent.answerAtOnce = { Command command -> refusal(reason) }
    agent
  }

  static CommandResult refusal(String reason) {
    CommandResult.newBuilder().setOk(false).setError(reason).build()
  }

  @Override
  String agentId() {
    agentId
  }

  @Override
  String zoneId() {
    zoneId
  }

  @Override
  synchronized CompletableFuture<CommandResult> command(Command.Builder command) {
    def next = new Sent(command.build(), new CompletableFuture<CommandResult>())
    sent << next
    if (answerAtOnce != null) {
      next.answer.complete(answerAtOnce(next.command))
    }
    next.answer
  }

  /** What each command sent said, in order: {@code add prod}, {@code update prod}, {@code remove prod}. */
  synchronized List<String> commands() {
    sent.collect { describe(it.command) }
  }

  /** The agent takes the oldest command it has not answered. */
  void accept() {
    unanswered().complete(OK)
  }

  /** The agent refuses the oldest command it has not answered. */
  void refuse(String reason) {
    unanswered().complete(refusal(reason))
  }

  /** The agent disconnects: every command it has not answered fails. */
  void disconnect() {
    List<Sent> waiting
    synchronized (this) {
      waiting = sent.findAll { !it.answer.done }
    }
    waiting.each { it.answer.completeExceptionally(new IllegalStateException("agent '$agentId' disconnected")) }
  }

  private synchronized CompletableFuture<CommandResult> unanswered() {
    def next = sent.find { !it.answer.done }
    if (next == null) {
      throw new AssertionError("agent '$agentId' has no command to answer (sent: ${commands()})")
    }
    next.answer
  }

  static String describe(Command command) {
    switch (command.commandCase) {
      case Command.CommandCase.ADD_ACCOUNT: return "add ${command.addAccount.account.name}"
      case Command.CommandCase.UPDATE_ACCOUNT: return "update ${command.updateAccount.account.name}"
      case Command.CommandCase.REMOVE_ACCOUNT: return "remove ${command.removeAccount.name}"
      default: return command.commandCase.name()
    }
  }

  static record Sent(Command command, CompletableFuture<CommandResult> answer) {}
}
