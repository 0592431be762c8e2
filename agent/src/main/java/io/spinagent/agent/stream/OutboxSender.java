package io.spinagent.agent.stream;

import io.grpc.stub.ClientCallStreamObserver;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.ChangeBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Writes the outbox to one session's stream, only while gRPC reports the stream ready: when
 * Clouddriver reads slowly, HTTP/2 flow control stops the writes, the outbox fills, and producers
 * block. Nothing is buffered here beyond the one frame being written.
 *
 * <p>Per account, entries go out in sequence order from where this session got to; a new session
 * starts from the beginning of the outbox, which is how unacknowledged changes are resent. Changes
 * are batched per account (at most {@link #MAX_CHANGES_PER_BATCH} and about {@link
 * #MAX_BATCH_BYTES}); a resync marker goes in its own frame. Accounts take turns, so one busy
 * account does not starve the others.
 *
 * <p>Not thread-safe: used only on the stream's thread.
 */
final class OutboxSender {

  static final int MAX_CHANGES_PER_BATCH = 500;

  /** A quarter of the plugin's default 4 MiB inbound limit, leaving room for one large object. */
  static final long MAX_BATCH_BYTES = 1L << 20;

  private final Outbox outbox;
  private final Supplier<List<String>> streamingAccounts;
  private final ClientCallStreamObserver<AgentMessage> stream;
  private final Consumer<AgentMessage> send;

  /** Highest sequence sent in this session, per account. */
  private final Map<String, Long> sentUpTo = new HashMap<>();

  private int nextAccount;

  OutboxSender(
      Outbox outbox,
      Supplier<List<String>> streamingAccounts,
      ClientCallStreamObserver<AgentMessage> stream,
      Consumer<AgentMessage> send) {
    this.outbox = outbox;
    this.streamingAccounts = streamingAccounts;
    this.stream = stream;
    this.send = send;
  }

  /** Sends until the stream is not ready or nothing is left. */
  void drain() {
    while (stream.isReady()) {
      if (!sendNextFrame()) {
        return;
      }
    }
  }

  private boolean sendNextFrame() {
    List<String> accounts = streamingAccounts.get();
    for (int i = 0; i < accounts.size(); i++) {
      int index = (nextAccount + i) % accounts.size();
      String account = accounts.get(index);
      long after = sentUpTo.getOrDefault(account, 0L);
      List<OutboxEntry> entries =
          outbox.entriesAfter(account, after, MAX_CHANGES_PER_BATCH, MAX_BATCH_BYTES);
      if (entries.isEmpty()) {
        continue;
      }
      nextAccount = index + 1;
      sentUpTo.put(account, send(account, entries));
      return true;
    }
    return false;
  }

  /** Sends a prefix of {@code entries} as one frame; returns the last sequence sent. */
  private long send(String account, List<OutboxEntry> entries) {
    if (entries.get(0) instanceof OutboxEntry.Marker marker) {
      send.accept(AgentMessage.newBuilder().setResync(marker.marker()).build());
      return marker.sequence();
    }
    List<io.spinagent.protocol.v1.ObjectChange> changes = new ArrayList<>(entries.size());
    long last = 0;
    for (OutboxEntry entry : entries) {
      if (!(entry instanceof OutboxEntry.Change change)) {
        break;
      }
      changes.add(change.change());
      last = change.sequence();
    }
    send.accept(
        AgentMessage.newBuilder()
            .setChanges(ChangeBatch.newBuilder().setAccount(account).addAllChanges(changes))
            .build());
    return last;
  }
}
