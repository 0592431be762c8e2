package io.spinagent.plugin.cache;

import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.WatchProgress;

/** One item of an account's stream, in the order the agent produced it. */
public sealed interface SinkEntry {

  long sequence();

  record Change(ObjectChange change) implements SinkEntry {
    @Override
    public long sequence() {
      return change.getSequence();
    }
  }

  record Resync(ResyncMarker marker) implements SinkEntry {
    @Override
    public long sequence() {
      return marker.getSequence();
    }
  }

  /**
   * How far the agent has sent a kind (protocol version 2): committed, it becomes the kind's {@link
   * ResumePoint}.
   */
  record Progress(WatchProgress progress) implements SinkEntry {
    @Override
    public long sequence() {
      return progress.getSequence();
    }
  }
}
