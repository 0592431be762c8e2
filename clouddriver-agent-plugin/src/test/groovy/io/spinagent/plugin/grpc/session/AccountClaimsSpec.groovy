package io.spinagent.plugin.grpc.session

import static io.spinagent.plugin.grpc.RawAgent.DEPLOYMENT
import static io.spinagent.plugin.grpc.RawAgent.account

import io.grpc.Status
import io.spinagent.plugin.accounts.AccountBindings
import io.spinagent.plugin.accounts.AccountMember
import io.spinagent.plugin.accounts.AccountRegistry
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.AgentLink
import io.spinagent.plugin.accounts.AgentWelcomeListener
import io.spinagent.plugin.accounts.BindingPolicy
import io.spinagent.plugin.accounts.SwitchedOffRecord
import io.spinagent.plugin.cache.ResumePoints
import io.spinagent.protocol.v1.AccountDecision
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.Command
import io.spinagent.protocol.v1.CommandResult
import io.spinagent.protocol.v1.ResumePoint
import io.spinagent.protocol.v1.Role
import java.time.Clock
import java.time.Duration
import java.util.concurrent.CompletableFuture
import spock.lang.Specification
import spock.lang.Tag

/**
 * The accounts one session serves, decided by a real account registry; the session is stood in for
 * by a member that only says who it is.
 */
@Tag('one-class')
class AccountClaimsSpec extends Specification {

  static class Member implements AccountMember, AgentLink {
    final String agentId
    final List<AccountDecision> changed = []

    Member(String agentId) { this.agentId = agentId }

    String agentId() { agentId }

    String sessionId() { "session-of-$agentId" }

    String principal() { 'anonymous' }

    String zoneId() { '' }

    void decisionChanged(AccountDecision decision) { changed << decision }

    CompletableFuture<CommandResult> command(Command.Builder command) { new CompletableFuture<>() }
  }

  AccountRegistry registry = new AccountRegistry(Clock.systemUTC(), Duration.ofMinutes(10))
  Map<String, String> refusals = [:]
  AgentWelcomeListener welcomeListener = new AgentWelcomeListener() {
    void welcomed(AgentLink agent) {}

    Optional<String> refusal(AgentLink agent, AccountInfo account) { Optional.ofNullable(refusals[account.name]) }
  }
  Map<String, List<ResumePoint>> stored = [:]
  ResumePoints resumePoints = { names -> stored.subMap(names) } as ResumePoints

  AccountClaims claimsOf(Member member, ResumePoints points = resumePoints, AccountRegistry accounts = registry) {
    new AccountClaims(member, member, accounts, welcomeListener, points)
  }

  static ResumePoint point(String resourceVersion) {
    ResumePoint.newBuilder().setKind(DEPLOYMENT).setResourceVersion(resourceVersion).build()
  }

  def "claims are decided in the order claimed: the listener's refusals first, the registry the rest; the accepted are served"() {
    given:
    def claims = claimsOf(new Member('agent-1'))
    refusals['gone'] = 'no stored account owns it'

    when:
    def decisions = claims.claim([account('prod'), account('gone'), account('dev')])

    then:
    decisions*.account == ['prod', 'gone', 'dev']
    decisions*.accepted == [true, false, true]
    decisions[1].reason == 'no stored account owns it'
    claims.names() == ['prod', 'dev']
    claims.serves('prod')
    !claims.serves('gone')
    registry.find('gone').empty
  }

  def "an account another agent caches is served as standby, whose objects are not stored: late, not wrong"() {
    given:
    claimsOf(new Member('agent-1')).claim([account('prod')])
    def standby = claimsOf(new Member('agent-2'))

    when:
    def decisions = standby.claim([account('prod')])

    then:
    decisions.first().role == Role.ROLE_STANDBY
    standby.serves('prod')

    and: 'a change the standby sends (say, from before it was demoted) is dropped, the session goes on'
    !standby.streams('prod', 'changes')
  }

  def "only an account the session serves may be streamed, and only with its name"() {
    given:
    def claims = claimsOf(new Member('agent-1'))
    claims.claim([account('prod')])

    expect:
    claims.streams('prod', 'changes')

    when:
    claims.streams(name, 'resync')

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == code
    violation.message == message

    where:
    name  | code                              | message
    ''    | Status.Code.INVALID_ARGUMENT      | 'resync: account is required'
    'dev' | Status.Code.FAILED_PRECONDITION   | "resync for account 'dev', which this agent did not register or was refused (registered: [prod])"
  }

  def "an account the agent withdrew is no longer served"() {
    given:
    def claims = claimsOf(new Member('agent-1'))
    claims.claim([account('prod'), account('dev')])

    when:
    claims.forget('prod')

    then:
    claims.names() == ['dev']
    !claims.serves('prod')
  }

  def "version 1 decisions are sent as decided"() {
    given:
    def claims = claimsOf(new Member('agent-1'))
    def decisions = claims.claim([account('prod')])
    stored['prod'] = [point('42')]

    expect:
    claims.resumable(decisions, 1) == decisions
  }

  def "version 2: a streamed account's decision carries its resume points and needs no listing, and its kinds with one are in sync"() {
    given:
    def claims = claimsOf(new Member('agent-1'))
    def decisions = claims.claim([account('prod'), account('dev')])
    stored['prod'] = [point('42')]

    when:
    def resumable = claims.resumable(decisions, 2)

    then:
    resumable*.account == ['prod', 'dev']
    resumable*.resyncRequired == [false, false]
    resumable[0].resumePointsList == [point('42')]
    resumable[1].resumePointsList.isEmpty()
    registry.find('prod').get().state() == AccountState.ACTIVE
    registry.find('dev').get().state() == AccountState.ACTIVATING
  }

  def "version 2: when the resume points cannot be read, the decisions are sent as decided (the agent lists every kind)"() {
    given:
    def claims = claimsOf(new Member('agent-1'), { names -> throw new IllegalStateException('database down') } as ResumePoints)
    def decisions = claims.claim([account('prod')])

    expect:
    claims.resumable(decisions, 2) == decisions
  }

  def "claims that cannot be decided now end the session as UNAVAILABLE, so the agent claims them again"() {
    given:
    def unreadable = new AccountRegistry(Clock.systemUTC(), Duration.ofMinutes(10), { [] as Set },
      new AccountBindings() {
        Map<String, String> bind(Collection<String> accounts, String principal) { throw new IllegalStateException('database down') }

        void unbind(String account) {}
      }, BindingPolicy.DEFAULT, SwitchedOffRecord.NONE)
    def claims = claimsOf(new Member('agent-1'), resumePoints, unreadable)

    when:
    claims.claim([account('prod')])

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == Status.Code.UNAVAILABLE
    violation.message.endsWith('; reconnect to claim the accounts again')
    claims.names().isEmpty()
  }
}
