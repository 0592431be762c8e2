package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.FormatOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/** What the committers are handed: an account's batch, or the removal of an account's rows. */
sealed interface Work {

  String account();

  /** Completed once the work is committed, or exceptionally when nothing of it was. */
  CompletableFuture<CommitOutcome> result();

  /** An account's batch, and (once its group is taken) the derivation of its objects. */
  final class Batch implements Work {
    final SinkBatch batch;
    private final CompletableFuture<CommitOutcome> result = new CompletableFuture<>();
    private final CompletableFuture<?> after;
    private final long handedOverNanos = System.nanoTime();
    private final long bytes;
    private FormatOptions options;
    private ParallelBatch<Derivation.Item, Derivation.Derived> derived;
    private int offset;

    Batch(SinkBatch batch) {
      this(batch, CompletableFuture.completedFuture(null));
    }

    /** A batch that may be taken only once {@code after} (its predecessor's result) is complete. */
    Batch(SinkBatch batch, CompletableFuture<?> after) {
      this.batch = batch;
      this.after = after;
      long size = 0;
      for (SinkEntry entry : batch.entries()) {
        if (entry instanceof SinkEntry.Change c) {
          size += c.change().getObjectJson().size();
        }
      }
      this.bytes = size;
    }

    @Override
    public String account() {
      return batch.account();
    }

    @Override
    public CompletableFuture<CommitOutcome> result() {
      return result;
    }

    List<SinkEntry> entries() {
      return batch.entries();
    }

    /** Whether it may be taken: its predecessor (an earlier slice of the same batch) is done. */
    boolean isReady() {
      return after.isDone();
    }

    /** {@link System#nanoTime()} when it was handed over. */
    long handedOverNanos() {
      return handedOverNanos;
    }

    /** Bytes of object JSON it carries. */
    long bytes() {
      return bytes;
    }

    boolean isStarted() {
      return derived != null;
    }

    /**
     * Its objects are derived as items {@code offset…} of {@code derived}, under {@code options}.
     */
    void started(
        FormatOptions options,
        ParallelBatch<Derivation.Item, Derivation.Derived> derived,
        int offset) {
      this.options = options;
      this.derived = derived;
      this.offset = offset;
    }

    FormatOptions options() {
      return options;
    }

    /** Whether entry i's derivation is done, so that {@link #derived} would not wait. */
    boolean isDerived(int i) {
      return derived.isDone(offset + i);
    }

    Derivation.Derived derived(int i) {
      return derived.get(offset + i);
    }
  }

  /**
   * Removes every row of an account, if {@code wanted} still says so when its turn comes (an
   * account served again meanwhile keeps what its listing writes).
   */
  record Purge(String account, BooleanSupplier wanted, CompletableFuture<CommitOutcome> result)
      implements Work {}
}
