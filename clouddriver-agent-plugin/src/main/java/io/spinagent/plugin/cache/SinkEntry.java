package io.spinagent.plugin.cache;

import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;

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
}
