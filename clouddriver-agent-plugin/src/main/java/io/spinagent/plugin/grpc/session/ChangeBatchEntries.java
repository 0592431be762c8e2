package io.spinagent.plugin.grpc.session;

import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.protocol.v1.ChangeBatch;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.WatchProgress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An agent's {@link ChangeBatch} as the sink's entries, in sequence order: each change, resync
 * marker and watch progress checked ({@link FrameValidation}), markers given the batch's account.
 * Markers and progress travel inside a batch only from protocol version 2 on, and then no two
 * entries of a batch may share a sequence number.
 */
final class ChangeBatchEntries {

  private ChangeBatchEntries() {}

  /**
   * @throws ProtocolViolation naming the entry and what is wrong with it
   */
  static List<SinkEntry> of(ChangeBatch batch, int protocolVersion) {
    String account = batch.getAccount();
    if (protocolVersion < 2 && (batch.getMarkersCount() > 0 || batch.getProgressCount() > 0)) {
      throw ProtocolViolation.invalid(
          "changes for account '"
              + account
              + "': resync markers and watch progress inside a batch need protocol version 2,"
              + " and this session speaks version "
              + protocolVersion);
    }
    List<SinkEntry> entries =
        new ArrayList<>(
            batch.getChangesCount() + batch.getMarkersCount() + batch.getProgressCount());
    for (int i = 0; i < batch.getChangesCount(); i++) {
      ObjectChange change = batch.getChanges(i);
      FrameValidation.validate(change, account, i);
      entries.add(new SinkEntry.Change(change));
    }
    for (ResyncMarker marker : batch.getMarkersList()) {
      FrameValidation.validate(marker, account);
      if (!marker.getAccount().isEmpty() && !marker.getAccount().equals(account)) {
        throw ProtocolViolation.invalid(
            "changes for account '"
                + account
                + "' carry a resync marker of account '"
                + marker.getAccount()
                + "'");
      }
      entries.add(new SinkEntry.Resync(marker.toBuilder().setAccount(account).build()));
    }
    for (WatchProgress progress : batch.getProgressList()) {
      FrameValidation.validate(progress, account);
      entries.add(new SinkEntry.Progress(progress));
    }
    if (batch.getMarkersCount() > 0 || batch.getProgressCount() > 0) {
      entries.sort(Comparator.comparingLong(SinkEntry::sequence));
      for (int i = 1; i < entries.size(); i++) {
        if (entries.get(i).sequence() == entries.get(i - 1).sequence()) {
          throw ProtocolViolation.invalid(
              "changes for account '"
                  + account
                  + "': sequence "
                  + entries.get(i).sequence()
                  + " is used twice in one batch");
        }
      }
    }
    return entries;
  }
}
