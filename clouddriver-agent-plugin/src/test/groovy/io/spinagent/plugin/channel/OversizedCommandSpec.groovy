package io.spinagent.plugin.channel

import io.spinagent.protocol.v1.AccountDefinition
import io.spinagent.protocol.v1.AddAccount
import io.spinagent.protocol.v1.Command
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * A command larger than an agent accepts in one frame (16 MiB) would end the agent's session, and
 * with it the streams of every account it serves: it is refused before it is sent.
 */
class OversizedCommandSpec extends Specification {

  @AutoCleanup RealAgentFixture fixture = new RealAgentFixture().startPlugin()
  PollingConditions eventually = new PollingConditions(timeout: 20, delay: 0.1)

  def "a command over the agents' frame limit is refused before it is sent, and the agent's session carries on"() {
    given: 'a real agent connected and streaming its account'
    fixture.startAgent(fixture.pluginPort(), 1 << 20)
    eventually.eventually { assert fixture.sessions.find('agent-1').isPresent() }
    def session = fixture.sessions.find('agent-1').get()

    and: 'an account definition of about 20 MB (two million namespaces)'
    def definition = AccountDefinition.newBuilder().setName('huge').setServiceAccount(true)
    (1..2_000_000).each { definition.addNamespaces("ns-${it}".toString()) }
    def command = Command.newBuilder().setAddAccount(AddAccount.newBuilder().setAccount(definition))

    when:
    session.command(command).get(10, TimeUnit.SECONDS)

    then: 'the command fails at once, naming its size and the limit'
    ExecutionException e = thrown()
    e.cause instanceof IllegalArgumentException
    e.cause.message ==~ /the command is \d+ bytes, over the 16777216 bytes an agent accepts in one frame/

    and: 'the agent never lost its session'
    fixture.disconnects.isEmpty()
    fixture.sessions.find('agent-1').get().sessionId() == session.sessionId()
    fixture.accounts.find('prod').get().cachingAgentId() == 'agent-1'
  }
}
