package io.spinagent.plugin.channel

import io.spinagent.plugin.accounts.AccountState
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.Role
import io.spinagent.testkit.net.TcpProxy
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.lang.Timeout
import spock.util.concurrent.PollingConditions

/**
 * The real agent against the real plugin over real sockets, with the network and the plugin failing
 * underneath: whatever happens, what Clouddriver ends up holding equals what the agent produced.
 */
@Timeout(240)
class ChannelFailuresSpec extends Specification {

  @AutoCleanup
  RealAgentFixture fixture = new RealAgentFixture()

  @AutoCleanup
  TcpProxy proxy

  PollingConditions within(int seconds) {
    new PollingConditions(timeout: seconds, delay: 0.05)
  }

  double reconnects() {
    fixture.agentMeters.counter('spinagent.agent.reconnects').count()
  }

  void awaitStreaming() {
    within(30).eventually {
      assert fixture.client.isConnected()
      assert fixture.client.role('prod') == Optional.of(Role.ROLE_CACHING)
    }
  }

  def "cutting, stalling and refusing the connection mid-stream loses nothing: every object ends as the agent last saw it"() {
    given:
    fixture.startPlugin()
    proxy = TcpProxy.start('127.0.0.1', fixture.pluginPort())
    fixture.startAgent(proxy.port(), 512 << 10)
    awaitStreaming()
    Map<String, String> expected = [:]
    def producing = new AtomicBoolean(true)
    def failuresDone = new AtomicBoolean(false)
    Throwable producerFailure = null

    when: 'a producer changes 300 objects in rounds (at least ten, and until the failures are over), deleting some in the last'
    def producer = Thread.start('producer') {
      try {
        boolean last = false
        for (int round = 1; !last; round++) {
          last = round >= 10 && failuresDone.get()
          for (int i = 0; i < 300; i++) {
            String name = "deploy-$i"
            if (last && i % 7 == 0) {
              fixture.outbox.put('prod', fixture.delete(name))
              expected.remove(name)
            } else {
              String json = """{"name":"$name","round":$round,"pad":"${'x' * 200}"}"""
              fixture.outbox.put('prod', fixture.upsert(name, json))
              expected[name] = json
            }
          }
          Thread.sleep(300)
        }
      } catch (Throwable t) {
        producerFailure = t
      } finally {
        producing.set(false)
      }
    }
    int reconnectsBefore = reconnects()
    boolean producingWhenCut = producing.get()

    and: 'the connection is reset twice; each time the agent notices and reconnects'
    2.times {
      double before = reconnects()
      proxy.cut()
      within(30).eventually { assert reconnects() > before && fixture.client.isConnected() }
    }

    and: 'stalled, without closing anything, until the agent notices (its heartbeat check), then released'
    double beforeStall = reconnects()
    proxy.stall()
    within(30).eventually { assert reconnects() > beforeStall }
    proxy.resume()
    within(30).eventually { assert fixture.client.isConnected() }

    and: 'new connections refused for a while'
    double beforeRefusal = reconnects()
    proxy.refuse(true)
    proxy.cut()
    within(30).eventually { assert reconnects() >= beforeRefusal + 2 }
    proxy.refuse(false)
    boolean producingAfterFailures = producing.get()
    failuresDone.set(true)
    producer.join(120_000)

    then: 'the producer finished without error'
    producerFailure == null
    !producing.get()

    and: 'everything arrives and is acknowledged, and the store holds exactly the last state of every object'
    within(60).eventually {
      assert fixture.outbox.size() == 0
      assert fixture.stored() == expected
    }
    reconnects() >= reconnectsBefore + 5
    proxy.acceptedConnections() >= 4

    and: 'the failures happened while changes were being produced'
    producingWhenCut
    producingAfterFailures
  }

  def "1,000 objects changed ten times each through a slow sink: the outbox stays within its bound and the end state is exact"() {
    given:
    long bound = 256 << 10
    fixture.commitDelayMillis = 5
    fixture.startPlugin()
    fixture.startAgent(fixture.pluginPort(), bound)
    awaitStreaming()
    def maxSeen = new AtomicLong()
    def sampling = new AtomicBoolean(true)
    def sampler = Thread.start('outbox-sampler') {
      while (sampling.get()) {
        maxSeen.accumulateAndGet(fixture.outbox.bytes(), Math::max)
        Thread.sleep(1)
      }
    }
    Map<String, String> expected = [:]

    when: 'a full listing (BEGIN, 1,000 objects, END) followed by nine rounds of updates'
    fixture.outbox.putResyncMarker('prod', RealAgentFixture.DEPLOYMENT, ResyncPhase.RESYNC_PHASE_BEGIN, 'r1')
    for (int round = 1; round <= 10; round++) {
      for (int i = 0; i < 1000; i++) {
        String name = "deploy-$i"
        String json = """{"name":"$name","round":$round,"pad":"${'y' * 100}"}"""
        fixture.outbox.put('prod', fixture.upsert(name, json))
        expected[name] = json
      }
      if (round == 1) {
        fixture.outbox.putResyncMarker('prod', RealAgentFixture.DEPLOYMENT, ResyncPhase.RESYNC_PHASE_END, 'r1')
      }
    }

    then: 'the store converges on the last state of every object'
    within(120).eventually {
      assert fixture.outbox.size() == 0
      assert fixture.stored().size() == 1000
      assert fixture.stored() == expected
    }

    and: 'the listing completed the account'
    fixture.accounts.find('prod').get().state() == AccountState.ACTIVE

    and: 'producers had to wait for acknowledgements, and the outbox never held more than its bound'
    fixture.outbox.blockedPuts() > 0
    sampling.set(false)
    sampler.join(5_000)
    maxSeen.get() > 0
    maxSeen.get() <= bound

    cleanup:
    sampling.set(false)
  }

  def "the agent reconnects when the plugin restarts on the same port, and delivers what changed meanwhile"() {
    given:
    fixture.startPlugin()
    int port = fixture.pluginPort()
    fixture.startAgent(port, 1 << 20)
    awaitStreaming()
    fixture.outbox.put('prod', fixture.upsert('before', '{"v":"before"}'))
    within(30).eventually { assert fixture.stored().keySet() == ['before'] as Set }

    when: 'the plugin stops, a change happens, and the plugin starts again on the same port'
    fixture.stopPlugin()
    within(30).eventually { assert !fixture.client.isConnected() }
    fixture.outbox.put('prod', fixture.upsert('during', '{"v":"during"}'))
    fixture.outbox.put('prod', fixture.delete('before'))
    fixture.startPlugin(port)

    then: 'the agent is back, streaming, and the change made while Clouddriver was down arrived'
    awaitStreaming()
    within(30).eventually {
      assert fixture.outbox.size() == 0
      assert fixture.stored() == [during: '{"v":"during"}']
    }

    and: 'the restarted plugin trusts nothing it held: it asked for a complete listing again'
    fixture.resyncsRequested == ['agent-1:prod', 'agent-1:prod']
  }
}
