package io.spinagent.agent.stream;

import io.grpc.stub.ClientCallStreamObserver;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.ChangeBatch;
import io.spinagent.protocol.v1.ProtocolVersion;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the outbox to one session's stream, only while gRPC reports the stream ready: when
 * Clouddriver reads slowly, HTTP/2 flow control stops the writes, the outbox fills, and producers
 * block. Nothing is buffered here beyond the one frame being written.
 *
 * <p>Per account, entries go out in sequence order from where this session got to; a new session
 * starts from the beginning of the outbox, which is how unacknowledged changes are resent. Entries
 * are batched per account (at most {@link #MAX_ENTRIES_PER_BATCH} and about {@link
 * #MAX_BATCH_BYTES}). How depends on the session's protocol version:
 *
 * <ul>
 *   <li>version 2: changes, resync markers and watch progress travel together in one ChangeBatch,
 *       each with its sequence;
 *   <li>version 1: a resync marker goes in a frame of its own, and watch progress (which a version
 *       1 plugin does not know) is skipped.
 * </ul>
 *
 * <p>Accounts take turns, so one busy account does not starve the others. Not thread-safe: used
 * only on the stream's thread.
 */
final class OutboxSender {

  private static final Logger log = LoggerFactory.getLogger(OutboxSender.class);

  static final int MAX_ENTRIES_PER_BATCH = 500;

  /** A quarter of the plugin's default 4 MiB inbound limit, leaving room for one large object. */
  static final long MAX_BATCH_BYTES = 1L << 20;

  private final Outbox outbox;
  private final Supplier<List<String>> streamingAccounts;
  private final ClientCallStreamObserver<AgentMessage> stream;
  private final Consumer<AgentMessage> send;
  private final boolean inlineMarkers;

  /** Highest sequence sent (or skipped) in this session, per account. */
  private final Map<String, Long> sentUpTo = new HashMap<>();

  private int nextAccount;

  OutboxSender(
      Outbox outbox,
      Supplier<List<String>> streamingAccounts,
      ClientCallStreamObserver<AgentMessage> stream,
      Consumer<AgentMessage> send,
      int protocolVersion) {
    this.outbox = outbox;
    this.streamingAccounts = streamingAccounts;
    this.stream = stream;
    this.send = send;
    this.inlineMarkers = protocolVersion >= ProtocolVersion.PROTOCOL_VERSION_2_VALUE;
  }

  /** Sends until the stream is not ready or nothing is left. */
  void drain() {
    while (stream.isReady()) {
      if (!sendNextFrame()) {
        return;
      }
    }
  }

  /** Sends (or skips) the next run of one account's entries; false when there was none. */
  private boolean sendNextFrame() {
    List<String> accounts = streamingAccounts.get();
    for (int i = 0; i < accounts.size(); i++) {
      int index = (nextAccount + i) % accounts.size();
      String account = accounts.get(index);
      long after = sentUpTo.getOrDefault(account, 0L);
      List<OutboxEntry> entries =
          outbox.entriesAfter(account, after, MAX_ENTRIES_PER_BATCH, MAX_BATCH_BYTES);
      if (entries.isEmpty()) {
        continue;
      }
      nextAccount = index + 1;
      long last = inlineMarkers ? sendBatch(account, entries) : sendV1(account, entries);
      sentUpTo.put(account, last);
      if (log.isDebugEnabled()) {
        log.debug(
            "Account '{}': sent {} entries, sequences {} to {}",
            account,
            entries.size(),
            entries.get(0).sequence(),
            last);
      }
      return true;
    }
    return false;
  }

  /** Version 2: every entry in one batch; returns the last sequence sent. */
  private long sendBatch(String account, List<OutboxEntry> entries) {
    ChangeBatch.Builder batch = ChangeBatch.newBuilder().setAccount(account);
    for (OutboxEntry entry : entries) {
      if (entry instanceof OutboxEntry.Change change) {
        batch.addChanges(change.change());
      } else if (entry instanceof OutboxEntry.Marker marker) {
        batch.addMarkers(marker.marker());
      } else if (entry instanceof OutboxEntry.Progress progress) {
        batch.addProgress(progress.progress());
      }
    }
    send.accept(AgentMessage.newBuilder().setChanges(batch).build());
    return entries.get(entries.size() - 1).sequence();
  }

  /**
   * Version 1: a leading marker alone, or the changes up to the next marker in one batch, skipping
   * progress; returns the last sequence sent or skipped.
   */
  private long sendV1(String account, List<OutboxEntry> entries) {
    if (entries.get(0) instanceof OutboxEntry.Marker marker) {
      send.accept(AgentMessage.newBuilder().setResync(marker.marker()).build());
      return marker.sequence();
    }
    ChangeBatch.Builder batch = ChangeBatch.newBuilder().setAccount(account);
    long last = 0;
    for (OutboxEntry entry : entries) {
      if (entry instanceof OutboxEntry.Marker) {
        break;
      }
      if (entry instanceof OutboxEntry.Change change) {
        batch.addChanges(change.change());
      }
      last = entry.sequence();
    }
    if (batch.getChangesCount() > 0) {
      send.accept(AgentMessage.newBuilder().setChanges(batch).build());
    }
    return last;
  }
}
