package io.spinagent.plugin.grpc.session

import static io.spinagent.plugin.grpc.RawAgent.account

import io.grpc.Status
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.Hello
import spock.lang.Specification
import spock.lang.Tag

/** What a Hello must say before a session acts on it, and the Welcome that answers it. */
@Tag('one-class')
class HandshakeSpec extends Specification {

  static Hello hello(String agentId, List<Integer> versions, List<AccountInfo> accounts = []) {
    Hello.newBuilder().setAgentId(agentId).addAllProtocolVersions(versions).addAllAccounts(accounts).build()
  }

  def "a hello is greeted with the highest version both sides speak and its account names in order"() {
    when:
    def greeting = Handshake.check(hello('agent-1', [1, 2, 7], [account('prod'), account('dev')]))

    then:
    greeting.agentId() == 'agent-1'
    greeting.protocolVersion() == 2
    greeting.accountNames() as List == ['prod', 'dev']
  }

  def "a hello without an agent id is invalid"() {
    when:
    Handshake.check(hello(' ', [1]))

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == Status.Code.INVALID_ARGUMENT
    violation.message == 'hello.agent_id is required'
  }

  def "an agent that speaks no version of the plugin's is told to upgrade"() {
    when:
    Handshake.check(hello('agent-1', [9]))

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == Status.Code.FAILED_PRECONDITION
    violation.message == "agent 'agent-1' speaks protocol versions [9], this plugin supports [1, 2]: upgrade the agent or the plugin"
  }

  def "a hello that lists an account twice, or an account without its cluster, is invalid"() {
    when:
    Handshake.check(hello('agent-1', [1], accounts))

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == Status.Code.INVALID_ARGUMENT
    violation.message == message

    where:
    accounts                                  | message
    [account('prod'), account('prod')]        | "hello lists account 'prod' twice"
    [account('prod', '')]                     | "account 'prod': cluster.api_server_host is required"
  }

  def "the welcome carries the chosen version, the session, the replica, the interval and the decisions"() {
    given:
    def decision = AccountDecision.newBuilder().setAccount('prod').setAccepted(true).build()

    when:
    def welcome = Handshake.welcome(2, 'session-1', 'replica-1', 10, [decision]).welcome

    then:
    welcome.protocolVersion == 2
    welcome.sessionId == 'session-1'
    welcome.replicaId == 'replica-1'
    welcome.heartbeatIntervalSeconds == 10
    welcome.accountsList == [decision]
  }
}
