package io.spinagent.plugin.accounts

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.DECISIONS
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.grpc.InsecureChannelCredentials
import io.spinagent.plugin.cache.sql.SqlWriterFixture.MutableClock
import io.spinagent.plugin.grpc.ChannelFixture
import io.spinagent.plugin.grpc.RawAgent
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import java.time.Duration
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The account registry with real sessions as its members, on gRPC's in-process transport: what
 * agents hear and stream as accounts are orphaned, taken over, switched and deleted. The spec owns
 * the clock the grace period is measured with. {@link AccountRegistrySpec} is the registry alone.
 */
class AccountRegistrySessionsSpec extends Specification {

  static final Duration GRACE = Duration.ofMinutes(10)

  @AutoCleanup
  ChannelFixture fixture = ChannelFixture.inProcess()

  MutableClock clock = new MutableClock(1_700_000_000_000L)

  PollingConditions conditions = new PollingConditions(timeout: 10)

  def setup() {
    fixture.clock = clock
    fixture.properties.accounts.gracePeriod = GRACE
    // Sessions never go silent on this clock's account: the spec moves it by minutes.
    fixture.properties.sessions.heartbeatInterval = Duration.ofHours(1)
  }

  AccountRegistry getAccounts() {
    fixture.accounts
  }

  def "an account nobody serves waits ORPHANED for the grace period, then is removed with its objects"() {
    given: 'prod is listed and ACTIVE'
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
    agent.resync('prod', 1, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 2, 'web').resync('prod', 3, ResyncPhase.RESYNC_PHASE_END)
    agent.awaitAck('prod', 3)
    conditions.eventually { assert accounts.find('prod').get().state() == AccountState.ACTIVE }

    when: 'its agent leaves'
    agent.complete()
    agent.awaitClosed()

    then:
    conditions.eventually { assert accounts.find('prod').get().state() == AccountState.ORPHANED }
    accounts.find('prod').get().cachingAgentId() == null

    when: 'just short of the grace period'
    clock.advance(GRACE.minusSeconds(1).toMillis())
    accounts.expireOrphans()

    then:
    accounts.find('prod').get().state() == AccountState.ORPHANED
    fixture.store.objects('prod').size() == 1

    when: 'past it'
    clock.advance(2_000)
    accounts.expireOrphans()

    then:
    accounts.find('prod').isEmpty()
    fixture.store.objects('prod').isEmpty()
  }

  def "an agent back within the grace period serves its account again from what was committed"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
    agent.upsert('prod', 1, 'web').upsert('prod', 2, 'api')
    agent.awaitAck('prod', 2)
    agent.complete()
    conditions.eventually { assert accounts.find('prod').get().state() == AccountState.ORPHANED }

    when:
    clock.advance(GRACE.minusMinutes(1).toMillis())
    def back = fixture.agent()
    def decision = back.hello('agent-1', [account('prod')]).next(WELCOME).welcome.getAccounts(0)
    clock.advance(GRACE.toMillis())
    accounts.expireOrphans()

    then: 'it caches prod, told where its acknowledged stream ended, and prod is no orphan any more'
    decision.accepted
    decision.role == Role.ROLE_CACHING
    decision.committedSequence == 2
    accounts.find('prod').get().state() == AccountState.ACTIVATING
    accounts.find('prod').get().cachingAgentId() == 'agent-1'
    fixture.store.objects('prod').size() == 2
  }

  def "agents of the same cluster stand by, and the oldest takes over when the caching one leaves"() {
    given:
    fixture.start()
    def first = fixture.agent()
    def second = fixture.agent()
    def third = fixture.agent()

    when:
    first.hello('agent-1', [account('prod')]).next(WELCOME)
    def secondDecision = second.hello('agent-2', [account('prod')]).next(WELCOME).welcome.getAccounts(0)
    clock.advance(1_000)
    third.hello('agent-3', [account('prod')]).next(WELCOME)

    then:
    secondDecision.accepted
    secondDecision.role == Role.ROLE_STANDBY
    accounts.find('prod').get().cachingAgentId() == 'agent-1'
    accounts.find('prod').get().standbyAgentIds() == ['agent-2', 'agent-3']

    when:
    first.complete()
    def takeover = second.next(DECISIONS).decisions.getAccounts(0)

    then: 'the oldest standby streams it; the account never was an orphan'
    takeover.account == 'prod'
    takeover.role == Role.ROLE_CACHING
    accounts.find('prod').get().cachingAgentId() == 'agent-2'
    accounts.find('prod').get().standbyAgentIds() == ['agent-3']
    accounts.find('prod').get().state() == AccountState.ACTIVATING
  }

  def "switched off, its agent is told to stop; switched on, the agent streams it again without reconnecting"() {
    given:
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)

    when:
    accounts.deactivate('prod')
    def off = agent.next(DECISIONS).decisions.getAccounts(0)

    then:
    !off.accepted
    off.reason.contains('prod')
    accounts.find('prod').get().state() == AccountState.INACTIVE
    accounts.isInactive('prod')

    when:
    accounts.activate('prod')
    def on = agent.next(DECISIONS).decisions.getAccounts(0)

    then:
    on.accepted
    on.role == Role.ROLE_CACHING
    accounts.find('prod').get().cachingAgentId() == 'agent-1'
    !accounts.isInactive('prod')

    when: 'it streams again on the same session'
    agent.upsert('prod', 1, 'web')

    then:
    agent.awaitAck('prod', 1) == 1
  }

  def "deleted, its agents are told why, and the name binds to the next principal that claims it"() {
    given: 'two agents with tokens of their own'
    fixture.properties.grpc.auth.tokens.values = ['team-a a-token', 'team-b b-token']
    fixture.start()
    def teamA = fixture.agent(InsecureChannelCredentials.create(), 'a-token')
    def teamB = fixture.agent(InsecureChannelCredentials.create(), 'b-token')
    teamA.hello('agent-a', [account('prod')]).next(WELCOME)

    when: "team B's agent claims prod while it is bound to team A"
    def refused = teamB.hello('agent-b', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then:
    !refused.accepted
    refused.reason.contains("bound to principal 'token:team-a'")
    accounts.refusedClaims(AccountRegistry.RefusedClaim.PRINCIPAL) == 1

    when:
    accounts.delete('prod', 'deleted by the operator')
    def gone = teamA.next(DECISIONS).decisions.getAccounts(0)

    then:
    !gone.accepted
    gone.reason == 'deleted by the operator'
    accounts.find('prod').isEmpty()

    when: 'team B claims it again'
    def again = fixture.agent(InsecureChannelCredentials.create(), 'b-token')
    def taken = again.hello('agent-b2', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then:
    taken.accepted
    taken.role == Role.ROLE_CACHING
    accounts.find('prod').get().cachingAgentId() == 'agent-b2'
  }
}
