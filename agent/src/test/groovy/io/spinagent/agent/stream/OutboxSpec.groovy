package io.spinagent.agent.stream

import com.google.protobuf.ByteString
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.ResyncPhase
import java.time.Clock
import java.time.Instant
import java.time.ZoneOffset
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong
import spock.lang.Specification
import spock.lang.Timeout
import spock.util.concurrent.PollingConditions

@Timeout(30)
class OutboxSpec extends Specification {

  static final Kind DEPLOYMENT = Kind.newBuilder().setGroup('apps').setVersion('v1').setKind('Deployment')
      .setPlural('deployments').setNamespaced(true).build()
  static final Kind POD = Kind.newBuilder().setVersion('v1').setKind('Pod').setPlural('pods').setNamespaced(true).build()

  final AtomicLong seed = new AtomicLong(1000)
  final Outbox outbox = new Outbox(1 << 20, { seed.get() })

  static ObjectChange upsert(String name, String json = '{"v":1}', Kind kind = DEPLOYMENT) {
    ObjectChange.newBuilder().setKind(kind).setNamespace('default').setName(name).setUid("uid-$name")
        .setType(ChangeType.CHANGE_TYPE_UPSERT).setObjectJson(ByteString.copyFromUtf8(json)).build()
  }

  static ObjectChange delete(String name, Kind kind = DEPLOYMENT) {
    ObjectChange.newBuilder().setKind(kind).setNamespace('default').setName(name).setUid("uid-$name")
        .setType(ChangeType.CHANGE_TYPE_DELETE).build()
  }

  static ObjectChange sized(String name, int bytes) {
    upsert(name, 'x' * bytes)
  }

  List<OutboxEntry> all(String account = 'prod') {
    outbox.entriesAfter(account, 0, Integer.MAX_VALUE, Long.MAX_VALUE)
  }

  def "each put takes the account's next sequence, starting above the seed"() {
    when:
    long first = outbox.put('prod', upsert('a'))
    long second = outbox.put('prod', upsert('b'))
    long other = outbox.put('staging', upsert('a'))

    then:
    first == 1001
    second == 1002
    other == 1001
    all()*.sequence() == [1001L, 1002L]
    (all()[0] as OutboxEntry.Change).change().sequence == 1001
  }

  def "only the latest state of an object is kept, under a new sequence"() {
    given:
    outbox.put('prod', upsert('a', '{"v":1}'))
    outbox.put('prod', upsert('b'))

    when:
    long latest = outbox.put('prod', upsert('a', '{"v":2}'))

    then:
    outbox.size() == 2
    all().collect { (it as OutboxEntry.Change).change().name } == ['b', 'a']
    all()[1].sequence() == latest
    (all()[1] as OutboxEntry.Change).change().objectJson.toStringUtf8() == '{"v":2}'
  }

  def "the same name in another namespace, kind or account is another object"() {
    when:
    outbox.put('prod', upsert('a'))
    outbox.put('prod', upsert('a', '{}', POD))
    outbox.put('prod', upsert('a').toBuilder().setNamespace('other').build())
    outbox.put('staging', upsert('a'))

    then:
    outbox.size() == 4
  }

  def "a delete replaces an earlier upsert and a later upsert replaces the delete"() {
    when:
    outbox.put('prod', upsert('a'))
    outbox.put('prod', delete('a'))

    then:
    all().size() == 1
    (all()[0] as OutboxEntry.Change).change().type == ChangeType.CHANGE_TYPE_DELETE

    when:
    outbox.put('prod', upsert('a', '{"v":3}'))

    then:
    all().size() == 1
    (all()[0] as OutboxEntry.Change).change().type == ChangeType.CHANGE_TYPE_UPSERT
  }

  def "a delete is never lost to an acknowledgement of the upsert it replaced"() {
    given: 'an upsert is sent'
    long sent = outbox.put('prod', upsert('a'))

    when: 'the object is deleted while the upsert is in flight, then the upsert is acknowledged'
    long deleted = outbox.put('prod', delete('a'))
    outbox.acknowledge('prod', sent)

    then: 'the delete stays until its own sequence is acknowledged'
    all()*.sequence() == [deleted]
    (all()[0] as OutboxEntry.Change).change().type == ChangeType.CHANGE_TYPE_DELETE

    when:
    outbox.acknowledge('prod', deleted)

    then:
    outbox.size() == 0
    outbox.bytes() == 0
  }

  def "acknowledgements are cumulative per account and count only current sequences"() {
    given:
    long a = outbox.put('prod', upsert('a'))
    long b = outbox.put('prod', upsert('b'))
    long c = outbox.put('prod', upsert('c'))
    outbox.put('staging', upsert('a'))
    long a2 = outbox.put('prod', upsert('a', '{"v":2}')) // a moves past c

    when:
    int removed = outbox.acknowledge('prod', c)

    then: 'b and c go; a was re-sequenced after c, staging is untouched'
    removed == 2
    all()*.sequence() == [a2]
    outbox.size('staging') == 1
    a < b
  }

  def "an acknowledgement for an unknown account or below everything removes nothing"() {
    given:
    outbox.put('prod', upsert('a'))

    expect:
    outbox.acknowledge('nobody', Long.MAX_VALUE) == 0
    outbox.acknowledge('prod', 5) == 0
    outbox.size() == 1
  }

  def "entriesAfter resends in sequence order from any point, bounded by count and bytes"() {
    given:
    def sequences = (1..10).collect { outbox.put('prod', upsert("o$it")) }

    expect: 'a new session starts from 0 and sees everything in order'
    all()*.sequence() == sequences

    and: 'a session continues after what it sent'
    outbox.entriesAfter('prod', sequences[3], 100, Long.MAX_VALUE)*.sequence() == sequences.drop(4)

    and: 'count bound'
    outbox.entriesAfter('prod', 0, 3, Long.MAX_VALUE)*.sequence() == sequences.take(3)

    and: 'byte bound, but always at least one entry'
    outbox.entriesAfter('prod', 0, 100, 1).size() == 1
    outbox.hasEntriesAfter('prod', sequences[8])
    !outbox.hasEntriesAfter('prod', sequences[9])
  }

  def "resync markers share the sequence space and are never coalesced"() {
    when:
    long begin1 = outbox.putResyncMarker('prod', DEPLOYMENT, ResyncPhase.RESYNC_PHASE_BEGIN, 'r1')
    long change = outbox.put('prod', upsert('a'))
    long end1 = outbox.putResyncMarker('prod', DEPLOYMENT, ResyncPhase.RESYNC_PHASE_END, 'r1')
    long begin2 = outbox.putResyncMarker('prod', DEPLOYMENT, ResyncPhase.RESYNC_PHASE_BEGIN, 'r2')

    then:
    [begin1, change, end1, begin2] == [1001L, 1002L, 1003L, 1004L]
    all().collect { it.class } == [OutboxEntry.Marker, OutboxEntry.Change, OutboxEntry.Marker, OutboxEntry.Marker]
    (all()[2] as OutboxEntry.Marker).marker().resyncId == 'r1'
    (all()[2] as OutboxEntry.Marker).marker().sequence == end1
  }

  def "a change listed inside a resync is not moved past the resync's END by a later update"() {
    given:
    outbox.putResyncMarker('prod', DEPLOYMENT, ResyncPhase.RESYNC_PHASE_BEGIN, 'r1')
    long listed = outbox.put('prod', upsert('a', '{"v":1}'))
    outbox.putResyncMarker('prod', DEPLOYMENT, ResyncPhase.RESYNC_PHASE_END, 'r1')

    when:
    long updated = outbox.put('prod', upsert('a', '{"v":2}'))
    long podUpdate = outbox.put('prod', upsert('p', '{}', POD))
    long podAgain = outbox.put('prod', upsert('p', '{"v":2}', POD))

    then: 'the listed state stays inside the resync, the update follows it; other kinds coalesce as usual'
    all()*.sequence().containsAll([listed, updated, podAgain])
    !all()*.sequence().contains(podUpdate)

    when: 'a further update coalesces with the unpinned one'
    long third = outbox.put('prod', upsert('a', '{"v":3}'))

    then:
    !all()*.sequence().contains(updated)
    all()*.sequence().containsAll([listed, third])
  }

  def "sequences keep increasing across a restart: the counter starts at the clock in microseconds"() {
    given:
    def now = Instant.parse('2026-01-01T00:00:00Z')
    def first = new Outbox(1 << 20, Clock.fixed(now, ZoneOffset.UTC))
    long before = (1..100).collect { first.put('prod', upsert("o$it")) }.max()

    when: 'the agent restarts a second later with a new, empty outbox'
    def restarted = new Outbox(1 << 20, Clock.fixed(now.plusSeconds(1), ZoneOffset.UTC))
    long after = restarted.put('prod', upsert('o1'))

    then:
    before == now.epochSecond * 1_000_000 + 100
    after > before
  }

  def "committed_sequence from Welcome drops what it covers"() {
    given:
    def sequences = (1..5).collect { outbox.put('prod', upsert("o$it")) }

    when:
    outbox.applyCommitted('prod', sequences[2])

    then:
    all()*.sequence() == sequences.drop(3)
  }

  def "a committed_sequence above anything issued drops nothing and moves the counter past it"() {
    given:
    long s = outbox.put('prod', upsert('a'))

    when:
    outbox.applyCommitted('prod', s + 1_000)
    long next = outbox.put('prod', upsert('b'))

    then:
    all()*.sequence() == [s, next]
    next == s + 1_001
  }

  def "a put that would exceed the byte bound blocks until an acknowledgement frees space"() {
    given:
    def small = new Outbox(10_000, { 0L })
    long first = small.put('prod', sized('a', 4_000))
    small.put('prod', sized('b', 4_000))
    def done = new CountDownLatch(1)
    long third = 0

    when:
    def producer = Thread.start {
      third = small.put('prod', sized('c', 4_000))
      done.countDown()
    }

    then: 'the producer waits, and is counted as blocked'
    !done.await(300, TimeUnit.MILLISECONDS)
    new PollingConditions(timeout: 60).eventually { assert small.blockedPuts() == 1 }
    small.bytes() <= 10_000

    when:
    small.acknowledge('prod', first)

    then:
    done.await(5, TimeUnit.SECONDS)
    third > 0
    small.size() == 2
    small.bytes() <= 10_000
    small.blockedNanos() > 0

    cleanup:
    producer?.join(1000)
  }

  def "replacing an object's entry does not block when the replacement fits in what it frees"() {
    given:
    def small = new Outbox(9_000, { 0L })
    small.put('prod', sized('a', 4_000))
    small.put('prod', sized('b', 4_000))

    when:
    small.put('prod', sized('a', 4_000))

    then:
    small.size() == 2
    small.blockedPuts() == 0
  }

  def "a single entry larger than the bound is accepted when the outbox is empty"() {
    given:
    def small = new Outbox(1_000, { 0L })

    when:
    long s = small.put('prod', sized('huge', 5_000))

    then:
    s == 1
    small.bytes() > 1_000

    when: 'the next put waits for it to be acknowledged'
    def done = new CountDownLatch(1)
    def producer = Thread.start { small.put('prod', sized('next', 10)); done.countDown() }

    then:
    !done.await(200, TimeUnit.MILLISECONDS)

    when:
    small.acknowledge('prod', s)

    then:
    done.await(5, TimeUnit.SECONDS)

    cleanup:
    producer?.join(1000)
  }

  def "suspending an account drops its entries, ignores its puts and frees space; resume continues its sequences"() {
    given:
    long s = outbox.put('prod', upsert('a'))
    outbox.put('staging', upsert('a'))

    when:
    outbox.suspend('prod')

    then:
    outbox.size('prod') == 0
    outbox.size() == 1
    outbox.put('prod', upsert('b')) == 0
    outbox.size('prod') == 0

    when:
    outbox.resume('prod')

    then:
    outbox.put('prod', upsert('c')) > s
  }

  def "closing wakes blocked producers with an error"() {
    given:
    def small = new Outbox(1_000, { 0L })
    small.put('prod', sized('a', 900))
    Throwable failure = null
    def producer = Thread.start {
      try {
        small.put('prod', sized('b', 900))
      } catch (Throwable t) {
        failure = t
      }
    }
    new PollingConditions(timeout: 60).eventually { assert small.blockedPuts() == 1 }

    when:
    small.close()
    producer.join(5000)

    then:
    failure instanceof IllegalStateException
    failure.message.contains('closed')
  }

  def "the entries-added listener is told after each put"() {
    given:
    int calls = 0
    outbox.onEntriesAdded { calls++ }

    when:
    outbox.put('prod', upsert('a'))
    outbox.putResyncMarker('prod', DEPLOYMENT, ResyncPhase.RESYNC_PHASE_BEGIN, 'r')

    then:
    calls == 2
  }

  def "watch progress takes the account's next sequence and only the latest of a kind is kept"() {
    when:
    long change = outbox.put('prod', upsert('a'))
    long first = outbox.putProgress('prod', DEPLOYMENT, '10')
    long pods = outbox.putProgress('prod', POD, '11')
    long second = outbox.putProgress('prod', DEPLOYMENT, '12')

    then:
    [change, first, pods, second] == [1001L, 1002L, 1003L, 1004L]
    all()*.sequence() == [change, pods, second]
    (all()[2] as OutboxEntry.Progress).progress().resourceVersion == '12'
    (all()[2] as OutboxEntry.Progress).progress().sequence == second
    outbox.size() == 3

    when:
    outbox.acknowledge('prod', second)

    then:
    outbox.size() == 0
    outbox.bytes() == 0
  }

  def "watch progress never waits for space, and is not kept for a suspended account or a closed outbox"() {
    given:
    def small = new Outbox(1_000, { 0L })
    small.put('prod', sized('a', 900))

    expect: "a full outbox takes progress at once"
    small.putProgress('prod', DEPLOYMENT, '5') == 2
    small.blockedPuts() == 0

    when:
    small.suspend('prod')

    then:
    small.putProgress('prod', DEPLOYMENT, '6') == 0
    small.size() == 0

    when:
    small.resume('prod')
    small.close()

    then:
    small.putProgress('prod', DEPLOYMENT, '7') == 0
    small.isClosed()
  }

  def "suspensions are counted per account, so a producer can tell that changes were dropped"() {
    expect:
    outbox.suspensions('prod') == 0

    when:
    outbox.put('prod', upsert('a'))
    outbox.suspend('prod')
    outbox.resume('prod')
    outbox.suspend('prod')

    then:
    outbox.suspensions('prod') == 2
    outbox.suspensions('staging') == 0
  }

  def "awaitEmpty tells whether everything was acknowledged in time"() {
    given:
    long s = outbox.put('prod', upsert('a'))

    expect:
    !outbox.awaitEmpty(java.time.Duration.ZERO)

    when:
    def acknowledger = Thread.start { outbox.acknowledge('prod', s) }

    then:
    outbox.awaitEmpty(java.time.Duration.ofSeconds(60))

    cleanup:
    acknowledger?.join()
  }
}
