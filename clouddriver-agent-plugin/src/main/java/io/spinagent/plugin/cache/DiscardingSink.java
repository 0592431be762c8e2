package io.spinagent.plugin.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where agent streams go when Clouddriver has no SQL database: Clouddriver reads its cache from the
 * database only, so nothing would ever read what they carry. Each batch is acknowledged and
 * dropped; nothing is held. The plugin says so when it starts ({@code store.NoDatabaseNotice}).
 */
public final class DiscardingSink implements ChangeSink {

  @Override
  public CompletionStage<CommitOutcome> commit(SinkBatch batch) {
    return CompletableFuture.completedFuture(CommitOutcome.STORED);
  }
}
