package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.RefusedChange;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Cuts a large batch into slices that are committed one after another, each in a transaction of its
 * own, and completes the batch once its last slice is committed.
 *
 * <p>Why: a transaction holds every batch handed over while it runs, so a quiet account's one
 * change waits for whatever transaction is running and then shares the next one. An account that
 * streams hundreds of changes at once would otherwise make both of those transactions long; in
 * slices, no transaction carries more than {@link #MAX_CHANGES} changes (or {@link #MAX_BYTES}
 * bytes of objects) of one account, and the other accounts' work is taken between two slices.
 * {@link GroupCommitter} slices only while other accounts stream too: for an account alone, more
 * transactions would only cost time.
 *
 * <p>The agent is acknowledged once, for the whole batch, with every slice's refusals and relist
 * requests. When a slice fails, the batch fails and its later slices are dropped unwritten; the
 * agent sends the whole batch again, and its slices already committed are written again as they are
 * (a change is applied the same way twice).
 */
final class BatchSlices {

  /** Entries of one batch in one transaction at most. */
  static final int MAX_CHANGES = 100;

  /** Bytes of object JSON of one batch in one transaction at most (unless one object has more). */
  static final long MAX_BYTES = 1L << 20;

  private BatchSlices() {}

  /**
   * The work to queue for {@code work}: itself when it is small (or a purge), else its slices in
   * stream order, each taken only after the previous one is done.
   */
  static List<Work> of(Work work) {
    if (!(work instanceof Work.Batch batch)
        || (batch.entries().size() <= MAX_CHANGES && batch.bytes() <= MAX_BYTES)) {
      return List.of(work);
    }
    List<Work.Batch> slices = new ArrayList<>();
    List<SinkEntry> entries = batch.entries();
    CompletableFuture<?> previous = CompletableFuture.completedFuture(null);
    int from = 0;
    while (from < entries.size()) {
      int to = from;
      long bytes = 0;
      while (to < entries.size() && to - from < MAX_CHANGES) {
        long size = bytesOf(entries.get(to));
        if (to > from && bytes + size > MAX_BYTES) {
          break;
        }
        bytes += size;
        to++;
      }
      Work.Batch slice =
          new Work.Batch(new SinkBatch(batch.account(), entries.subList(from, to)), previous);
      slices.add(slice);
      previous = slice.result();
      from = to;
    }
    join(slices, batch.result());
    return List.copyOf(slices);
  }

  /** Completes {@code whole} with every slice's outcome, or with the first slice's failure. */
  private static void join(List<Work.Batch> slices, CompletableFuture<CommitOutcome> whole) {
    List<CommitOutcome> outcomes = new ArrayList<>();
    for (Work.Batch slice : slices) {
      // A slice's failure, and one of merging the outcomes, complete whole: nothing is lost with
      // the future.
      CompletableFuture<?> unused =
          slice
              .result()
              .whenComplete(
                  (outcome, failure) -> {
                    if (failure != null) {
                      whole.completeExceptionally(failure);
                      // the later slices are dropped from the queue unwritten (see GroupCommitter)
                      slices.forEach(s -> s.result().completeExceptionally(failure));
                      return;
                    }
                    synchronized (outcomes) {
                      outcomes.add(outcome);
                      if (outcomes.size() == slices.size()) {
                        try {
                          whole.complete(merged(outcomes));
                        } catch (RuntimeException e) {
                          whole.completeExceptionally(e);
                        }
                      }
                    }
                  });
    }
  }

  private static CommitOutcome merged(List<CommitOutcome> outcomes) {
    List<RefusedChange> refused = new ArrayList<>();
    Set<Kind> relist = new LinkedHashSet<>();
    for (CommitOutcome outcome : outcomes) {
      refused.addAll(outcome.refused());
      relist.addAll(outcome.relistRequired());
    }
    return new CommitOutcome(refused, List.copyOf(relist));
  }

  private static long bytesOf(SinkEntry entry) {
    return entry instanceof SinkEntry.Change change ? change.change().getObjectJson().size() : 0;
  }
}
