package io.spinagent.agent.stream

import io.grpc.Status
import spock.lang.Specification

/** What an operator reads when a session with Clouddriver ends, and whether it asks them to act. */
class SessionEndAdviceSpec extends Specification {

  def "a refusal the operator must fix is an error naming what to check"() {
    when:
    def advice = SessionEndAdvice.of('agent-1', 'cd:9091', status, true)

    then:
    advice.mustAct()
    advice.message().startsWith("Agent 'agent-1': Clouddriver at cd:9091 ")
    advice.message().contains(hint)

    where:
    status                                                         | hint
    Status.UNAUTHENTICATED.withDescription('bad token')            | 'refused this agent\'s credentials: bad token. Check clouddriver.auth.token'
    Status.PERMISSION_DENIED.withDescription('subject not allowed') | 'refused this agent\'s credentials: subject not allowed.'
    Status.FAILED_PRECONDITION.withDescription('no common version') | 'do not speak a common protocol version'
    Status.ALREADY_EXISTS.withDescription('agent-1 is connected')  | 'Another process uses the same agent.id'
    Status.INVALID_ARGUMENT.withDescription('missing account')     | 'This is a bug in the agent or the plugin'
  }

  def "a lost or unreachable Clouddriver is a warning: the agent tries again on its own"() {
    expect:
    with(SessionEndAdvice.of('agent-1', 'cd:9091', Status.UNAVAILABLE.withDescription('io'), welcomed)) {
      !mustAct()
      message() == "Agent 'agent-1': $words Clouddriver at cd:9091: io"
    }

    where:
    welcomed | words
    true     | 'lost the session with'
    false    | 'cannot reach'
  }

  def "the agent's own missing credentials are its failure, not Clouddriver's refusal"() {
    given:
    def cause = new ChannelSetupException('clouddriver.auth.tokenFile', 'cannot read /token: no such file', null)

    when:
    def advice = SessionEndAdvice.of('agent-1', 'cd:9091', Status.UNAVAILABLE.withCause(cause), false)

    then:
    !advice.mustAct()
    advice.message() == "Agent 'agent-1': no credentials to connect to Clouddriver at cd:9091: ${cause.message};" +
        ' trying again with clouddriver.backoff'
  }

  def "any other end names its code, description and cause"() {
    when:
    def advice = SessionEndAdvice.of('agent-1', 'cd:9091',
        Status.INTERNAL.withDescription('boom').withCause(new IOException('reset')), true)

    then:
    !advice.mustAct()
    advice.message() == "Agent 'agent-1': session with Clouddriver at cd:9091 ended: INTERNAL boom (java.io.IOException: reset)"
  }
}
