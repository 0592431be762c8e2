package io.spinagent.plugin.accounts

import static io.spinagent.plugin.grpc.RawAgent.account
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import io.spinagent.plugin.cache.sql.SqlWriterFixture.MutableClock
import io.spinagent.plugin.grpc.ChannelFixture
import java.time.Duration
import spock.lang.AutoCleanup
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/** The sweep of orphaned accounts, stepped by the spec: no thread runs it here. */
class OrphanSweepSpec extends Specification {

  static final Duration GRACE = Duration.ofMinutes(10)

  @AutoCleanup
  ChannelFixture fixture = ChannelFixture.inProcess()

  MutableClock clock = new MutableClock(1_700_000_000_000L)

  PollingConditions conditions = new PollingConditions(timeout: 10)

  List<List<String>> told = []

  def setup() {
    fixture.clock = clock
    fixture.properties.accounts.gracePeriod = GRACE
    fixture.properties.sessions.heartbeatInterval = Duration.ofHours(1)
  }

  /** The fixture runs a sweep of its own; this spec runs its sweeps itself. */
  private void startWithoutItsSweep() {
    fixture.start()
    fixture.orphanSweep.stop()
  }

  def "a sweep removes the accounts orphaned past the grace period and says which"() {
    given: 'prod and dev lose their agent; qa keeps its own'
    startWithoutItsSweep()
    def leaving = fixture.agent()
    leaving.hello('agent-1', [account('prod'), account('dev', 'https://10.0.0.2:6443')]).next(WELCOME)
    fixture.agent().hello('agent-2', [account('qa', 'https://10.0.0.3:6443')]).next(WELCOME)
    leaving.complete()
    conditions.eventually {
      assert fixture.accounts.find('prod').get().state() == AccountState.ORPHANED
      assert fixture.accounts.find('dev').get().state() == AccountState.ORPHANED
    }
    def sweep = new OrphanSweep(fixture.accounts, { told << it }, GRACE)

    when: 'within the grace period'
    clock.advance(GRACE.minusSeconds(1).toMillis())
    sweep.sweep()

    then:
    told.isEmpty()
    fixture.accounts.find('prod').isPresent()

    when: 'past it'
    clock.advance(2_000)
    sweep.sweep()

    then: 'the orphans go, in one call, and the served account stays'
    told == [['dev', 'prod']] || told == [['prod', 'dev']]
    fixture.accounts.find('prod').isEmpty()
    fixture.accounts.find('dev').isEmpty()
    fixture.accounts.find('qa').isPresent()

    when: 'nothing more expires'
    sweep.sweep()

    then: 'nobody is told of nothing'
    told.size() == 1
  }

  def "a sweep whose listener fails is logged, and the next sweep runs"() {
    given:
    startWithoutItsSweep()
    def leaving = fixture.agent()
    leaving.hello('agent-1', [account('prod')]).next(WELCOME)
    leaving.complete()
    conditions.eventually { assert fixture.accounts.find('prod').get().state() == AccountState.ORPHANED }
    int calls = 0
    def sweep = new OrphanSweep(fixture.accounts, { calls++; throw new IllegalStateException('store down') }, GRACE)

    when:
    clock.advance(GRACE.plusSeconds(1).toMillis())
    sweep.sweep()

    then: 'the account is removed even so'
    notThrown(Exception)
    calls == 1
    fixture.accounts.find('prod').isEmpty()

    when:
    sweep.sweep()

    then:
    notThrown(Exception)
  }

  def "it sweeps every tenth of the grace period, between 50ms and 5s"() {
    expect:
    OrphanSweep.intervalFor(grace) == interval

    where:
    grace                     || interval
    Duration.ofMinutes(5)     || Duration.ofSeconds(5)
    Duration.ofSeconds(20)    || Duration.ofSeconds(2)
    Duration.ofMillis(100)    || Duration.ofMillis(50)
  }

  def "it runs on its own named thread from start to stop"() {
    given:
    startWithoutItsSweep()
    def sweep = new OrphanSweep(fixture.accounts, OrphanSweep.Listener.NONE, GRACE)

    when:
    sweep.start()

    then:
    sweep.running
    Thread.allStackTraces.keySet().any { it.name == 'spinagent-orphan-sweep' }

    when:
    sweep.stop()

    then:
    !sweep.running
    conditions.eventually {
      assert Thread.allStackTraces.keySet().every { it.name != 'spinagent-orphan-sweep' || !it.alive }
    }
  }
}
