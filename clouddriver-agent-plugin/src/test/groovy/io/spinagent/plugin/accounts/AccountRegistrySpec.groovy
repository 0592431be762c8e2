package io.spinagent.plugin.accounts

import static io.spinagent.plugin.accounts.RecordingMember.DEPLOYMENT
import static io.spinagent.plugin.accounts.RecordingMember.claimOf

import io.spinagent.plugin.time.FakeClock
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.Role
import java.time.Duration
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.lang.Tag

/**
 * The account registry alone: its members are recording connections, its listener records every
 * state change, and the grace period is measured on a fake clock. What agents hear over a real
 * session is {@link AccountRegistrySessionsSpec}'s.
 */
@Tag('one-class')
class AccountRegistrySpec extends Specification {

  static final Duration GRACE = Duration.ofMinutes(10)
  static final Kind SERVICE = Kind.newBuilder().setVersion('v1').setKind('Service').setPlural('services').build()

  FakeClock time = new FakeClock()
  /** Accounts another replica serves now, as the shared table would say. */
  Set<String> servedElsewhere = []
  AccountRegistry registry = new AccountRegistry(time.clock, GRACE, { names -> servedElsewhere.intersect(names) as Set },
    AccountBindings.inMemory(), BindingPolicy.DEFAULT, SwitchedOffRecord.NONE)

  /** Every state change the listeners heard, as {@code prod: ACTIVATING -> ACTIVE}. */
  List<String> changes = []
  /** Notifications made while the registry's lock was held: there must be none. */
  int underLock

  RecordingMember first = new RecordingMember('agent-1')
  RecordingMember second = new RecordingMember('agent-2')
  RecordingMember third = new RecordingMember('agent-3')

  def setup() {
    registry.addListener { account, previous ->
      underLock += Thread.holdsLock(registry) ? 1 : 0
      changes << "${account.name()}: ${previous} -> ${account.state()}".toString()
    }
    [first, second, third]*.lock = registry
  }

  def cleanup() {
    assert underLock == 0
    assert [first, second, third]*.heardUnderLock == [0, 0, 0]
  }

  def "the first member to claim an account streams it and the next stand by; it is ACTIVE once every kind it reported is in sync"() {
    when:
    def streaming = registry.claim(first, claimOf('prod', 'https://10.0.0.1:6443', [DEPLOYMENT, SERVICE]))
    def standing = registry.claim(second, claimOf('prod'))

    then:
    streaming.accepted && streaming.role == Role.ROLE_CACHING && streaming.resyncRequired
    standing.accepted && standing.role == Role.ROLE_STANDBY
    registry.find('prod').get().cachingAgentId() == 'agent-1'
    registry.find('prod').get().standbyAgentIds() == ['agent-2']
    registry.isCaching(first, 'prod')
    !registry.isCaching(second, 'prod')
    registry.isMember(second, 'prod')

    when: 'a standby reports its kinds in sync, then the streaming member one kind, then the other'
    registry.kindsInSync(second, 'prod', [DEPLOYMENT, SERVICE])
    registry.kindsInSync(first, 'prod', [DEPLOYMENT])

    then:
    registry.find('prod').get().state() == AccountState.ACTIVATING

    when:
    registry.kindsInSync(first, 'prod', [SERVICE])

    then:
    registry.find('prod').get().state() == AccountState.ACTIVE
    changes == ['prod: null -> ACTIVATING', 'prod: ACTIVATING -> ACTIVE']
  }

  def "a claim from another cluster is refused while the account exists, and counted"() {
    given:
    registry.claim(first, claimOf('prod'))

    when:
    def refused = registry.claim(second, claimOf('prod', 'https://10.9.9.9:6443'))

    then:
    !refused.accepted
    refused.reason.startsWith("account name 'prod' belongs to another cluster (https://10.0.0.1:6443")
    refused.reason.endsWith('Account names must be unique across clusters.')
    registry.refusedClaims(AccountRegistry.RefusedClaim.CLUSTER) == 1
    registry.find('prod').get().agentIds() == ['agent-1']
  }

  def "an account is bound to the principal that claimed it first; deleted, it binds to the next one that claims it"() {
    given:
    def teamA = new RecordingMember('agent-a', 'token:team-a')
    def teamB = new RecordingMember('agent-b', 'token:team-b')
    registry.claim(teamA, claimOf('prod'))

    when:
    def refused = registry.claim(teamB, claimOf('prod'))

    then:
    !refused.accepted
    refused.reason.startsWith("account 'prod' is bound to principal 'token:team-a', which registered it")
    registry.refusedClaims(AccountRegistry.RefusedClaim.PRINCIPAL) == 1
    !registry.isMember(teamB, 'prod')

    when:
    registry.delete('prod', 'deleted by the operator')
    def taken = registry.claim(teamB, claimOf('prod'))

    then:
    teamA.decisions*.reason == ['deleted by the operator']
    taken.accepted
    taken.role == Role.ROLE_CACHING
  }

  def "when the streaming member withdraws, the oldest standby takes over, told where its own stream was committed"() {
    given:
    registry.claim(first, claimOf('prod'))
    registry.claim(second, claimOf('prod'))
    registry.claim(third, claimOf('prod'))
    registry.recordCommitted(second, 'prod', 7)
    registry.kindsInSync(first, 'prod', [DEPLOYMENT])

    when: 'a standby withdraws: nobody hears of it'
    registry.withdraw(third, 'prod')

    then:
    [first, second, third]*.decisions.flatten().isEmpty()
    registry.find('prod').get().standbyAgentIds() == ['agent-2']

    when:
    registry.withdraw(first, 'prod')

    then:
    second.heard() == ['prod: caching']
    second.decisions[0].committedSequence == 7
    second.decisions[0].resyncRequired
    registry.find('prod').get().cachingAgentId() == 'agent-2'
    registry.find('prod').get().state() == AccountState.ACTIVATING
    changes == ['prod: null -> ACTIVATING', 'prod: ACTIVATING -> ACTIVE', 'prod: ACTIVE -> ACTIVATING']
  }

  def "an account whose last member left waits ORPHANED; a member back within the grace period streams it again, and past it the account is removed"() {
    given:
    registry.claim(first, claimOf('prod'))
    registry.release(first)

    expect:
    registry.find('prod').get().state() == AccountState.ORPHANED
    registry.find('prod').get().cachingAgentId() == null

    when: 'just short of the grace period'
    time.forwardTime(GRACE.minusSeconds(1).toSeconds(), TimeUnit.SECONDS)

    then:
    registry.expireOrphans().isEmpty()

    when: 'its agent is back, reconnected'
    def back = registry.claim(second, claimOf('prod'))
    time.forwardTime(GRACE.toSeconds(), TimeUnit.SECONDS)

    then: 'served, it is no orphan'
    back.accepted && back.role == Role.ROLE_CACHING
    registry.expireOrphans().isEmpty()

    when: 'it leaves again: the grace period starts from then'
    registry.release(second)
    time.forwardTime(GRACE.minusSeconds(1).toSeconds(), TimeUnit.SECONDS)

    then:
    registry.expireOrphans().isEmpty()

    when:
    time.forwardTime(1, TimeUnit.SECONDS)
    time.forwardTime(GRACE.toSeconds(), TimeUnit.SECONDS)

    then:
    registry.expireOrphans() == ['prod']
    registry.find('prod').isEmpty()
    changes == ['prod: null -> ACTIVATING', 'prod: ACTIVATING -> ORPHANED', 'prod: ORPHANED -> ACTIVATING',
                'prod: ACTIVATING -> ORPHANED', 'prod: ORPHANED -> REMOVED']
  }

  def "an orphan another replica serves now is forgotten here, never removed"() {
    given:
    registry.claim(first, claimOf('prod'))
    registry.claim(first, claimOf('dev'))
    registry.release(first)
    servedElsewhere << 'prod'

    when:
    def removed = registry.expireOrphans()

    then:
    removed.isEmpty()
    registry.find('prod').isEmpty()
    registry.find('dev').get().state() == AccountState.ORPHANED
    !changes.contains('prod: ORPHANED -> REMOVED')
  }

  def "switched off, its members are told why and stay members; switched on, the oldest streams it again and the others stand by"() {
    given:
    registry.claim(first, claimOf('prod'))
    registry.claim(second, claimOf('prod'))

    when:
    registry.deactivate('prod')

    then:
    [first, second]*.heard() == [['prod: refused'], ['prod: refused']]
    first.decisions[0].reason.startsWith("account 'prod' is INACTIVE: an operator switched it off")
    registry.find('prod').get().state() == AccountState.INACTIVE
    registry.isInactive('prod')
    registry.inactiveNames() == ['prod'] as Set
    !registry.isCaching(first, 'prod')
    registry.isMember(first, 'prod') && registry.isMember(second, 'prod')

    when: 'switched off again: nothing more is said'
    registry.deactivate('prod')

    then:
    first.decisions.size() == 1

    when:
    registry.activate('prod')

    then:
    first.heard() == ['prod: refused', 'prod: caching']
    second.heard() == ['prod: refused', 'prod: standby']
    registry.isCaching(first, 'prod')
    registry.find('prod').get().state() == AccountState.ACTIVATING
    changes == ['prod: null -> ACTIVATING', 'prod: ACTIVATING -> INACTIVE', 'prod: INACTIVE -> ACTIVATING']
  }

  def "a claim of a switched-off account is refused but kept as a member, and granted when the account is switched on"() {
    given:
    registry.deactivate('prod')

    when:
    def refused = registry.claim(first, claimOf('prod'))

    then:
    !refused.accepted
    refused.reason.contains("account 'prod' is INACTIVE")
    registry.isMember(first, 'prod')
    !registry.isCaching(first, 'prod')
    registry.find('prod').get().state() == AccountState.INACTIVE

    when:
    registry.activate('prod')

    then:
    first.heard() == ['prod: caching']
    first.decisions[0].resyncRequired
    registry.isCaching(first, 'prod')
    registry.find('prod').get().state() == AccountState.ACTIVATING
  }

  def "an account switched off here while a claim read the shared record stays off: memory is newer than the read"() {
    given: 'the shared record says prod is on, and an operator switches it off here just after the claim read it'
    AccountRegistry racing
    racing = new AccountRegistry(time.clock, GRACE, { names -> [] as Set }, AccountBindings.inMemory(),
      BindingPolicy.DEFAULT, { names -> racing.deactivate('prod'); [prod: false] } as SwitchedOffRecord)

    when:
    def decision = racing.claim(first, claimOf('prod'))

    then: 'the claim is refused as switched off, and the account stays INACTIVE'
    !decision.accepted
    decision.reason.contains("account 'prod' is INACTIVE")
    racing.isInactive('prod')
    racing.find('prod').get().state() == AccountState.INACTIVE
  }

  def "an account switched on through another replica is switched on here, where its agent waits refused"() {
    given: 'prod is switched off here, its agent a refused member; the shared record then says on'
    Map<String, Boolean> record = [prod: true]
    def following = new AccountRegistry(time.clock, GRACE, { names -> [] as Set }, AccountBindings.inMemory(),
      BindingPolicy.DEFAULT, { names -> record.subMap(names) } as SwitchedOffRecord)
    following.deactivate('prod')
    assert !following.claim(first, claimOf('prod')).accepted
    record.prod = false

    when:
    following.followSwitchesOn()

    then: 'its agent is told to stream it'
    first.heard() == ['prod: caching']
    following.isCaching(first, 'prod')
    !following.isInactive('prod')
  }

  def "a switched-off account that is deleted is not granted again to the member that claimed it"() {
    given:
    registry.deactivate('prod')
    registry.claim(first, claimOf('prod'))

    when:
    def known = registry.delete('prod', "account 'prod' was deleted through the SpinAgent API")

    then:
    known
    first.heard() == ['prod: refused']
    first.decisions[0].reason == "account 'prod' was deleted through the SpinAgent API"
    !registry.isMember(first, 'prod')
    !registry.isInactive('prod')
    registry.find('prod').isEmpty()
    changes == ['prod: null -> INACTIVE', 'prod: INACTIVE -> DELETING', 'prod: DELETING -> REMOVED']

    when: 'the name is switched on, or its orphans swept'
    registry.activate('prod')
    time.forwardTime(GRACE.toSeconds() * 2, TimeUnit.SECONDS)
    registry.expireOrphans()

    then: 'nothing is granted'
    first.heard() == ['prod: refused']
    registry.find('prod').isEmpty()
  }

  def "an account switched on when none of its members is left waits ORPHANED"() {
    given:
    registry.claim(first, claimOf('prod'))
    registry.deactivate('prod')
    registry.release(first)

    when:
    registry.activate('prod')

    then:
    registry.find('prod').get().state() == AccountState.ORPHANED
    first.heard() == ['prod: refused']
  }

  def "deleting an account the registry does not know still ends its binding"() {
    given:
    def bindings = AccountBindings.inMemory()
    bindings.bind(['prod'], 'token:team-a')
    def bound = new AccountRegistry(time.clock, GRACE, { names -> [] as Set }, bindings, BindingPolicy.DEFAULT, SwitchedOffRecord.NONE)

    when:
    def known = bound.delete('prod', 'deleted')
    def taken = bound.claim(new RecordingMember('agent-b', 'token:team-b'), claimOf('prod'))

    then:
    !known
    taken.accepted
  }

  def "an account whose Clouddriver definition cannot be written is FAILED until it can"() {
    given:
    registry.claim(first, claimOf('prod'))

    when:
    registry.markFailed('prod', 'account storage is read-only')

    then:
    registry.find('prod').get().state() == AccountState.FAILED
    registry.find('prod').get().lastError() == 'account storage is read-only'

    when: 'recovered before its listing was complete'
    registry.markRecovered('prod')

    then:
    registry.find('prod').get().state() == AccountState.ACTIVATING

    when: 'an account not served cannot fail'
    registry.release(first)
    registry.markFailed('prod', 'again')

    then:
    registry.find('prod').get().state() == AccountState.ORPHANED
  }

  def "a restarted replica's accounts wait ORPHANED for their agents, bound as before; switched-off names stay off"() {
    given:
    def cluster = new ClusterIdentity('https://10.0.0.1:6443', 'ab' * 32, 'v1.29.4')
    def served = new AgentAccount('prod', cluster, AccountState.ACTIVE, time.clock.instant(), 'agent-1', [], null, null)

    when:
    registry.restore(['off'] as Set, [served], [prod: first.principal])

    then:
    registry.find('prod').get().state() == AccountState.ORPHANED
    registry.isInactive('off')

    when:
    def stranger = registry.claim(new RecordingMember('agent-9', 'x509:CN=stranger'), claimOf('prod'))
    def owner = registry.claim(first, claimOf('prod'))

    then:
    !stranger.accepted
    owner.accepted && owner.role == Role.ROLE_CACHING

    when: 'restored but never claimed, an account is removed after the grace period'
    registry.restore([] as Set, [new AgentAccount('dev', cluster, AccountState.ACTIVE, time.clock.instant(), null, [], null, null)], [:])
    time.forwardTime(GRACE.toSeconds(), TimeUnit.SECONDS)

    then:
    registry.expireOrphans() == ['dev']
  }

  def "a listener that fails neither stops the change nor keeps the next listener from hearing it"() {
    given:
    def heard = []
    def failing = new AccountRegistry(time.clock, GRACE)
    failing.addListener { account, previous -> throw new IllegalStateException('listener broke') }
    failing.addListener { account, previous -> heard << account.state() }

    when:
    failing.claim(first, claimOf('prod'))

    then:
    heard == [AccountState.ACTIVATING]
    failing.find('prod').get().state() == AccountState.ACTIVATING
  }
}
