package io.spinagent.plugin.grpc.session

import io.spinagent.protocol.v1.Command
import io.spinagent.protocol.v1.CommandResult
import io.spinagent.protocol.v1.Disconnect
import io.spinagent.protocol.v1.PluginMessage
import java.util.concurrent.ExecutionException
import spock.lang.Specification
import spock.lang.Tag

/** Command round-trips with one agent, with the frames the session would send recorded. */
@Tag('one-class')
class AgentCommandsSpec extends Specification {

  List<PluginMessage> sent = []
  AgentCommands commands = new AgentCommands({ 'agent-1' }, sent.&add)

  static Command.Builder disconnect() {
    Command.newBuilder().setDisconnect(Disconnect.newBuilder().setReason('test'))
  }

  static Throwable failure(future) {
    try {
      future.get()
      null
    } catch (ExecutionException e) {
      e.cause
    }
  }

  def "a command is sent with an id of its own and completes with the agent's result for that id"() {
    when:
    def first = commands.send(disconnect())
    def second = commands.send(disconnect())

    then:
    sent*.bodyCase == [PluginMessage.BodyCase.COMMAND] * 2
    def ids = sent*.command*.commandId
    ids.every { !it.isEmpty() }
    ids.toSet().size() == 2

    when:
    commands.answered(CommandResult.newBuilder().setCommandId(ids[1]).setOk(true).build())

    then:
    !first.done
    second.get().ok
  }

  def "a result no command awaits is ignored"() {
    given:
    def awaited = commands.send(disconnect())

    when:
    commands.answered(CommandResult.newBuilder().setCommandId('unknown').build())

    then:
    !awaited.done
  }

  def "a command larger than an agent accepts fails without being sent"() {
    given:
    def huge = Command.newBuilder().setDisconnect(Disconnect.newBuilder()
      .setReason('x' * (AgentCommands.MAX_COMMAND_BYTES + 1)))

    when:
    def result = commands.send(huge)

    then:
    sent.isEmpty()
    def error = failure(result)
    error instanceof IllegalArgumentException
    error.message.endsWith("bytes, over the ${AgentCommands.MAX_COMMAND_BYTES} bytes an agent accepts in one frame")
  }

  def "when the session ends every awaited command fails with the reason, and later ones fail at once"() {
    given:
    def awaited = commands.send(disconnect())

    when:
    commands.sessionEnded("agent 'agent-1' disconnected (CANCELLED)")

    then:
    failure(awaited) instanceof IllegalStateException
    failure(awaited).message == "agent 'agent-1' disconnected (CANCELLED)"

    when:
    def later = commands.send(disconnect())

    then:
    failure(later).message == "agent 'agent-1' disconnected"
    sent.size() == 1
  }
}
