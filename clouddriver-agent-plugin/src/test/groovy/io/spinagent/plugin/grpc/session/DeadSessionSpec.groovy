package io.spinagent.plugin.grpc.session

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.spinagent.plugin.accounts.AgentWelcomeListener
import io.spinagent.plugin.grpc.ChannelFixture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * A session whose agent's connection is gone, in the window before the session has handled the
 * cancellation (its thread busy elsewhere): an agent that reconnects in that window is the same
 * agent, and must not be refused as a duplicate of its own dead session. On gRPC's in-process
 * transport the window is made on demand: the first session's thread is held in its welcome
 * listener while the agent's channel is shut down.
 */
class DeadSessionSpec extends Specification {

  @AutoCleanup
  ChannelFixture fixture = ChannelFixture.inProcess()

  PollingConditions conditions = new PollingConditions(timeout: 10)
  AtomicInteger welcomes = new AtomicInteger()
  CountDownLatch firstSessionBusy = new CountDownLatch(1)
  CountDownLatch releaseFirstSession = new CountDownLatch(1)

  def setup() {
    // The first session's thread stays busy after its welcome until the spec lets it go.
    fixture.welcomeListener = { agent ->
      if (welcomes.incrementAndGet() == 1) {
        firstSessionBusy.countDown()
        releaseFirstSession.await(30, TimeUnit.SECONDS)
      }
    } as AgentWelcomeListener
    fixture.start()
  }

  def cleanup() {
    releaseFirstSession.countDown()
  }

  def "an agent that reconnects while its dead session has not yet handled the lost connection is welcomed at once"() {
    given: 'an agent whose session is busy'
    def lost = fixture.agent()
    lost.hello('agent-1', [account('prod')]).next(WELCOME)
    assert firstSessionBusy.await(10, TimeUnit.SECONDS)
    AgentSession dead = fixture.sessions.find('agent-1').get()

    when: 'its connection ends: the transport has cancelled the stream, the session has not seen it'
    lost.close()
    conditions.eventually { assert dead.outbound.transportGone() }

    then: 'the dead session still holds the agent id'
    fixture.sessions.find('agent-1').get().is(dead)

    when: 'the agent reconnects'
    def back = fixture.agent()
    def welcome = back.hello('agent-1', [account('prod')]).next(WELCOME).welcome

    then: 'it is welcomed and given its account, and the dead session is gone'
    welcome.accountsList.find { it.account == 'prod' }.accepted
    !fixture.sessions.find('agent-1').get().is(dead)
    fixture.sessions.size() == 1

    when: 'the dead session finally handles its cancellation'
    releaseFirstSession.countDown()
    back.upsert('prod', 1, 'web')

    then: 'the new session carries on serving the account'
    back.awaitAck('prod', 1) == 1
    !fixture.sessions.find('agent-1').get().is(dead)
  }
}
