package io.spinagent.plugin.grpc

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.spinagent.plugin.accounts.AccountState
import io.spinagent.protocol.v1.ResyncPhase
import java.time.Duration
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

class GracePeriodSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = new ChannelFixture()

  PollingConditions eventually = new PollingConditions(timeout: 10)

  def "an account whose agent is gone is orphaned, then removed with its objects when the grace period ends"() {
    given:
    fixture.properties.accounts.gracePeriod = Duration.ofMillis(800)
    fixture.start()
    def agent = fixture.agent()
    agent.hello('agent-1', [account('prod')]).next(WELCOME)
    agent.resync('prod', 1, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 2, 'web').resync('prod', 3, ResyncPhase.RESYNC_PHASE_END)
    agent.awaitAck('prod', 3)

    expect:
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVE

    when:
    agent.close()

    then:
    eventually.eventually { assert fixture.accounts.find('prod').get().state() == AccountState.ORPHANED }
    fixture.store.objects('prod').size() == 1

    and:
    eventually.eventually { assert !fixture.accounts.find('prod').isPresent() }
    fixture.store.objects('prod').isEmpty()
  }

  def "an agent that returns within the grace period restores its account after a resync"() {
    given:
    fixture.properties.accounts.gracePeriod = Duration.ofMinutes(5)
    fixture.start()
    def first = fixture.agent()
    first.hello('agent-1', [account('prod')]).next(WELCOME)
    first.resync('prod', 1, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 2, 'web').resync('prod', 3, ResyncPhase.RESYNC_PHASE_END)
    first.awaitAck('prod', 3)

    when:
    first.close()

    then:
    eventually.eventually { assert fixture.accounts.find('prod').get().state() == AccountState.ORPHANED }

    when: 'the agent reconnects'
    def back = fixture.agent()
    def decision = back.hello('agent-1', [account('prod')]).next(WELCOME).welcome.getAccounts(0)

    then: 'it learns what was already committed, and the account waits for its listing'
    decision.accepted
    decision.committedSequence == 3
    decision.resyncRequired
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVATING
    fixture.store.objects('prod').size() == 1

    when:
    back.resync('prod', 4, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 5, 'web').resync('prod', 6, ResyncPhase.RESYNC_PHASE_END)
    back.awaitAck('prod', 6)

    then:
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVE
  }
}
