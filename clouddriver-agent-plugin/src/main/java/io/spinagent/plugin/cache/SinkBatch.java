package io.spinagent.plugin.cache;

import java.util.List;

/** Consecutive entries of one account's stream, committed together. */
public record SinkBatch(String account, List<SinkEntry> entries) {

  public SinkBatch {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(
          "a batch for account '" + account + "' needs at least one entry");
    }
    entries = List.copyOf(entries);
  }

  /** The sequence to acknowledge once the batch is committed. */
  public long lastSequence() {
    return entries.get(entries.size() - 1).sequence();
  }
}
