package io.spinagent.plugin.grpc

import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch

import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage

/**
 * The database's side of a session, held by the spec: every commit waits in flight until the spec
 * lets it through (to the store behind it) or fails it, so specs see what a session hands its
 * sink, in what order and how many at once.
 */
class GatedSink implements ChangeSink {

  private final ChangeSink store
  private final List<InFlight> inFlight = []
  /** Every batch the session handed over, retries included, in the order they arrived. */
  final List<SinkBatch> attempts = Collections.synchronizedList([])
  private int mostInFlight

  GatedSink(ChangeSink store) {
    this.store = store
  }

  @Override
  synchronized CompletionStage<CommitOutcome> commit(SinkBatch batch) {
    attempts << batch
    def commit = new InFlight(batch, new CompletableFuture<CommitOutcome>())
    inFlight << commit
    mostInFlight = Math.max(mostInFlight, inFlight.size())
    commit.result
  }

  synchronized List<SinkBatch> inFlight() {
    inFlight*.batch
  }

  /** The most commits that were in flight at once. */
  synchronized int mostInFlight() {
    mostInFlight
  }

  /** Commits the oldest batch in flight of {@code account} to the store. */
  void commitNext(String account) {
    def next = take(account)
    store.commit(next.batch).whenComplete { outcome, error ->
      error ? next.result.completeExceptionally(error) : next.result.complete(outcome)
    }
  }

  /** Fails the oldest batch in flight of {@code account}, as a database that is down would. */
  void failNext(String account) {
    take(account).result.completeExceptionally(new IllegalStateException('database unavailable'))
  }

  private synchronized InFlight take(String account) {
    def next = inFlight.find { it.batch.account() == account }
    if (next == null) {
      throw new AssertionError("no commit of $account in flight (in flight: ${inFlight()*.account()})")
    }
    inFlight.remove(next)
    next
  }

  private static record InFlight(SinkBatch batch, CompletableFuture<CommitOutcome> result) {}
}
