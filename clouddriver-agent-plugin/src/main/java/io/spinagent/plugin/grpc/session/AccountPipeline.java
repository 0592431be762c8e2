package io.spinagent.plugin.grpc.session;

import io.spinagent.common.Backoff;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkBatch;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one account's batches in order, one at a time, and reports each commit with its outcome.
 * A failed commit (say, the database is down) is retried with backoff and never reported: the agent
 * keeps the batch until it is acknowledged, and the session stops reading new frames while batches
 * pile up.
 */
final class AccountPipeline {

  private static final Logger log = LoggerFactory.getLogger(AccountPipeline.class);

  /** A failed commit is tried again after 250 ms, 500 ms, 1 s, … at most 30 s. */
  private static final Backoff RETRIES =
      Backoff.doubling(Duration.ofMillis(250), Duration.ofSeconds(30));

  private final String account;
  private final String agentId;
  private final ChangeSink sink;
  private final Executor executor;
  private final ScheduledExecutorService scheduler;
  private final BiConsumer<SinkBatch, CommitOutcome> committed;
  private final ArrayDeque<SinkBatch> queue = new ArrayDeque<>();
  private boolean running;
  private boolean closed;
  private int failures;

  AccountPipeline(
      String account,
      String agentId,
      ChangeSink sink,
      Executor executor,
      ScheduledExecutorService scheduler,
      BiConsumer<SinkBatch, CommitOutcome> committed) {
    this.account = account;
    this.agentId = agentId;
    this.sink = sink;
    this.executor = executor;
    this.scheduler = scheduler;
    this.committed = committed;
  }

  synchronized void submit(SinkBatch batch) {
    if (closed) {
      return;
    }
    queue.add(batch);
    if (!running) {
      running = true;
      executor.execute(this::commitHead);
    }
  }

  synchronized int pending() {
    return queue.size();
  }

  synchronized void close() {
    closed = true;
    queue.clear();
  }

  private void commitHead() {
    SinkBatch batch;
    synchronized (this) {
      batch = queue.peek();
      if (closed || batch == null) {
        running = false;
        return;
      }
    }
    CompletableFuture<CommitOutcome> commit;
    try {
      commit = sink.commit(batch).toCompletableFuture();
    } catch (RuntimeException e) {
      commit = CompletableFuture.failedFuture(e);
    }
    commit.whenComplete((outcome, error) -> finished(batch, outcome, error));
  }

  private void finished(SinkBatch batch, CommitOutcome outcome, Throwable error) {
    if (error != null) {
      Duration delay;
      synchronized (this) {
        if (closed) {
          running = false;
          return;
        }
        failures++;
        delay = RETRIES.delay(failures);
      }
      log.warn(
          "Account '{}' (agent '{}'): committing up to sequence {} failed (attempt {}), retrying in"
              + " {} ms: {}",
          account,
          agentId,
          batch.lastSequence(),
          failures,
          delay.toMillis(),
          error.toString());
      scheduler.schedule(
          () -> executor.execute(this::commitHead), delay.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    synchronized (this) {
      failures = 0;
      queue.poll();
    }
    committed.accept(batch, outcome == null ? CommitOutcome.STORED : outcome);
    executor.execute(this::commitHead);
  }
}
