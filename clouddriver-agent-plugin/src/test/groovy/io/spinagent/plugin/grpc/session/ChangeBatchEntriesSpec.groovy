package io.spinagent.plugin.grpc.session

import static io.spinagent.plugin.grpc.RawAgent.DEPLOYMENT

import com.google.protobuf.ByteString
import io.grpc.Status
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.protocol.v1.ChangeBatch
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.ResyncMarker
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.protocol.v1.WatchProgress
import spock.lang.Specification
import spock.lang.Tag

/** An agent's change batch as the sink's entries: checked, and in sequence order. */
@Tag('one-class')
class ChangeBatchEntriesSpec extends Specification {

  static ObjectChange change(long sequence, String name) {
    ObjectChange.newBuilder().setSequence(sequence).setKind(DEPLOYMENT).setNamespace('default').setName(name)
      .setType(ChangeType.CHANGE_TYPE_UPSERT).setObjectJson(ByteString.copyFromUtf8('{}')).build()
  }

  static ResyncMarker marker(long sequence, ResyncPhase phase, String account = '') {
    ResyncMarker.newBuilder().setAccount(account).setSequence(sequence).setPhase(phase).setKind(DEPLOYMENT).setResyncId('r1').build()
  }

  static WatchProgress progress(long sequence, String resourceVersion = '42') {
    WatchProgress.newBuilder().setSequence(sequence).setKind(DEPLOYMENT).setResourceVersion(resourceVersion).build()
  }

  static ChangeBatch.Builder batch(String account = 'prod') {
    ChangeBatch.newBuilder().setAccount(account)
  }

  def "a version 1 batch of changes keeps the agent's order"() {
    when:
    def entries = ChangeBatchEntries.of(batch().addChanges(change(1, 'web')).addChanges(change(2, 'api')).build(), 1)

    then:
    entries*.sequence() == [1L, 2L]
    entries.every { it instanceof SinkEntry.Change }
  }

  def "version 2: changes, markers and progress become one list in sequence order, markers of the batch's account"() {
    when:
    def entries = ChangeBatchEntries.of(batch()
      .addChanges(change(2, 'web'))
      .addMarkers(marker(1, ResyncPhase.RESYNC_PHASE_BEGIN))
      .addMarkers(marker(3, ResyncPhase.RESYNC_PHASE_END, 'prod'))
      .addProgress(progress(4))
      .build(), 2)

    then:
    entries*.sequence() == [1L, 2L, 3L, 4L]
    entries*.getClass() == [SinkEntry.Resync, SinkEntry.Change, SinkEntry.Resync, SinkEntry.Progress]
    entries.findAll { it instanceof SinkEntry.Resync }.every { it.marker().account == 'prod' }
  }

  def "markers or progress inside a batch need version 2"() {
    when:
    ChangeBatchEntries.of(batch().addProgress(progress(1)).build(), 1)

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == Status.Code.INVALID_ARGUMENT
    violation.message == "changes for account 'prod': resync markers and watch progress inside a batch need protocol version 2, and this session speaks version 1"
  }

  def "a batch is refused, naming the problem, when #problem"() {
    when:
    ChangeBatchEntries.of(frame.build(), 2)

    then:
    def violation = thrown(ProtocolViolation)
    violation.status().code == Status.Code.INVALID_ARGUMENT
    violation.message == message

    where:
    problem                                | frame                                                                                       | message
    'a marker names another account'       | batch().addMarkers(marker(1, ResyncPhase.RESYNC_PHASE_BEGIN, 'dev'))                        | "changes for account 'prod' carry a resync marker of account 'dev'"
    'two entries share a sequence'         | batch().addChanges(change(1, 'web')).addProgress(progress(1))                               | "changes for account 'prod': sequence 1 is used twice in one batch"
    'a change has no name'                 | batch().addChanges(change(1, ''))                                                          | "changes for account 'prod', change 0: name is required"
    'a progress has no resource version'   | batch().addProgress(progress(1, ''))                                                       | "watch progress for account 'prod' (Deployment): resource_version is required"
  }
}
