package io.spinagent.plugin.cache;

import java.util.concurrent.CompletionStage;

/**
 * Where an account's stream ends up. The plugin acknowledges a batch to its agent only after the
 * stage returned here completes normally, so an implementation must complete it only once the batch
 * is durable, and must tolerate the same batch again (agents resend what was not acknowledged).
 * Calls for one account never overlap; calls for different accounts may.
 */
public interface ChangeSink {

  /**
   * Commits the batch; the stage completes once it is durable, with what the agent should hear
   * besides the acknowledgement, or exceptionally when nothing of it was committed.
   */
  CompletionStage<CommitOutcome> commit(SinkBatch batch);
}
