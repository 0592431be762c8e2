package io.spinagent.agent.stream;

import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.WatchProgress;
import java.util.Objects;

/**
 * One item waiting in the {@link Outbox}: an object change, a resync marker or a kind's watch
 * progress, already stamped with its account's sequence number. Immutable; a newer state of the
 * same object (or newer progress of the same kind) is a new entry.
 */
public sealed interface OutboxEntry {

  /**
   * Bookkeeping charged per entry on top of its serialized size (maps, key, object headers), so the
   * byte bound stays honest for many small objects.
   */
  long OVERHEAD_BYTES = 128;

  String account();

  long sequence();

  /** What the entry counts against {@code clouddriver.outbox.maxBytes}. */
  long bytes();

  /** A change of one object; {@link ObjectChange#getSequence()} equals {@link #sequence()}. */
  record Change(String account, ObjectChange change, long bytes) implements OutboxEntry {
    public Change {
      Objects.requireNonNull(account, "account");
      Objects.requireNonNull(change, "change");
    }

    @Override
    public long sequence() {
      return change.getSequence();
    }
  }

  /** A resync marker; {@link ResyncMarker#getSequence()} equals {@link #sequence()}. */
  record Marker(String account, ResyncMarker marker, long bytes) implements OutboxEntry {
    public Marker {
      Objects.requireNonNull(account, "account");
      Objects.requireNonNull(marker, "marker");
    }

    @Override
    public long sequence() {
      return marker.getSequence();
    }
  }

  /**
   * How far a kind has been sent (protocol version 2); {@link WatchProgress#getSequence()} equals
   * {@link #sequence()}.
   */
  record Progress(String account, WatchProgress progress, long bytes) implements OutboxEntry {
    public Progress {
      Objects.requireNonNull(account, "account");
      Objects.requireNonNull(progress, "progress");
    }

    @Override
    public long sequence() {
      return progress.getSequence();
    }
  }
}
