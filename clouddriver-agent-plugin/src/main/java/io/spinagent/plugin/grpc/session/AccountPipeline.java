package io.spinagent.plugin.grpc.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.common.Backoff;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one account's batches in order, one commit at a time, and reports each commit with its
 * outcome.
 *
 * <p>A busy account reaches the database in few, large transactions rather than one per frame:
 * whatever queued while the previous commit ran is committed next as one batch, and an account
 * commits at most once per {@code minCommitInterval}. A cluster that changes a thousand objects a
 * second thus costs tens of transactions a second instead of a thousand, each with the fixed cost
 * of a transaction in the writer and the database; its own changes wait at most the interval. An
 * account that changes less often than that commits at once, and so does one whose session has
 * stopped reading its agent's frames until batches are committed: waiting would only stall the
 * agent's other accounts.
 *
 * <p>A failed commit (say, the database is down) is retried with backoff and never reported: the
 * agent keeps the batch until it is acknowledged, and the session stops reading new frames while
 * batches pile up.
 */
final class AccountPipeline {

  /** What the session hears once a commit is durable. */
  @FunctionalInterface
  interface Committed {
    /**
     * Called once a batch is committed.
     *
     * @param batch the entries committed, in stream order
     * @param frames how many of the session's batches they came in
     */
    void accept(SinkBatch batch, int frames, CommitOutcome outcome);
  }

  private static final Logger log = LoggerFactory.getLogger(AccountPipeline.class);

  /** A failed commit is tried again after 250 ms, 500 ms, 1 s, … at most 30 s. */
  private static final Backoff RETRIES =
      Backoff.doubling(Duration.ofMillis(250), Duration.ofSeconds(30));

  /**
   * Queued batches are joined up to this many entries per commit, so that a backlog (an agent that
   * was far ahead of a slow database) is committed in transactions of a bounded size.
   */
  static final int MAX_MERGED_ENTRIES = 1_000;

  private final String account;
  private final String agentId;
  private final ChangeSink sink;
  private final Executor executor;
  private final ScheduledExecutorService scheduler;
  private final long minCommitIntervalNanos;
  private final BooleanSupplier sessionStalled;
  private final LongSupplier nanoTime;
  private final Committed committed;

  /** Where the pipeline is; every move between states is made under the pipeline's lock. */
  private enum State {
    /** Nothing queued, nothing scheduled: the next {@link #submit} starts a commit. */
    IDLE,
    /**
     * {@link #commitNext} is on its way (handed to the executor, or to the scheduler after a failed
     * commit): it commits the queue's head or, when nothing is queued, goes back to IDLE.
     */
    QUEUED,
    /** The next commit waits for {@code minCommitInterval}; {@link #pacing} ends the wait. */
    PACING,
    /**
     * A commit is in flight: its end starts the next one. Whatever else would start one meanwhile
     * finds this state and leaves it to that end, so that the queue's head is never committed twice
     * and the frames an end removes are the ones it committed.
     */
    COMMITTING,
    /** Closed: nothing more is committed or reported. */
    CLOSED
  }

  @GuardedBy("this")
  private final ArrayDeque<SinkBatch> queue = new ArrayDeque<>();

  @GuardedBy("this")
  private State state = State.IDLE;

  /** The timer that ends {@link State#PACING}; null in every other state. */
  @GuardedBy("this")
  private ScheduledFuture<?> pacing;

  @GuardedBy("this")
  private int failures;

  @GuardedBy("this")
  private long lastCommitStart;

  AccountPipeline(
      String account,
      String agentId,
      ChangeSink sink,
      Executor executor,
      ScheduledExecutorService scheduler,
      Duration minCommitInterval,
      BooleanSupplier sessionStalled,
      Committed committed) {
    this(
        account,
        agentId,
        sink,
        executor,
        scheduler,
        minCommitInterval,
        sessionStalled,
        System::nanoTime,
        committed);
  }

  AccountPipeline(
      String account,
      String agentId,
      ChangeSink sink,
      Executor executor,
      ScheduledExecutorService scheduler,
      Duration minCommitInterval,
      BooleanSupplier sessionStalled,
      LongSupplier nanoTime,
      Committed committed) {
    this.account = account;
    this.agentId = agentId;
    this.sink = sink;
    this.executor = executor;
    this.scheduler = scheduler;
    this.minCommitIntervalNanos = minCommitInterval.toNanos();
    this.sessionStalled = sessionStalled;
    this.nanoTime = nanoTime;
    this.committed = committed;
    // As if the last commit were an interval ago: the first one does not wait.
    this.lastCommitStart = nanoTime.getAsLong() - minCommitIntervalNanos;
  }

  synchronized void submit(SinkBatch batch) {
    if (state == State.CLOSED) {
      return;
    }
    queue.add(batch);
    if (state == State.IDLE) {
      state = State.QUEUED;
      executor.execute(this::commitNext);
    }
  }

  synchronized int pending() {
    return queue.size();
  }

  /**
   * Drops what is queued; a commit under way finishes but is not reported.
   *
   * @return the batches dropped, the one being committed included
   */
  synchronized int close() {
    state = State.CLOSED;
    if (pacing != null) {
      pacing.cancel(false);
      pacing = null;
    }
    int dropped = queue.size();
    queue.clear();
    return dropped;
  }

  /**
   * The session has stopped reading until batches commit: a commit waiting for the interval starts
   * now (later ones do not wait while the session says it is stalled).
   */
  void sessionStalled() {
    synchronized (this) {
      // A timer whose task has started cannot be cancelled: that task starts the commit instead.
      if (state != State.PACING || !pacing.cancel(false)) {
        return;
      }
      pacing = null;
      state = State.QUEUED;
    }
    executor.execute(this::commitNext);
  }

  private void paced() {
    synchronized (this) {
      if (state != State.PACING) {
        return;
      }
      pacing = null;
      state = State.QUEUED;
    }
    executor.execute(this::commitNext);
  }

  private void commitNext() {
    SinkBatch batch;
    int frames;
    synchronized (this) {
      if (state != State.QUEUED) {
        return; // committing, pacing or closed: not this call's to start
      }
      if (queue.isEmpty()) {
        state = State.IDLE;
        return;
      }
      long now = nanoTime.getAsLong();
      long wait = lastCommitStart + minCommitIntervalNanos - now;
      if (wait > 0 && !sessionStalled.getAsBoolean()) {
        state = State.PACING;
        pacing = scheduler.schedule(this::paced, wait, TimeUnit.NANOSECONDS);
        return;
      }
      lastCommitStart = now;
      frames = 0;
      int entries = 0;
      for (SinkBatch next : queue) {
        if (frames > 0 && entries + next.entries().size() > MAX_MERGED_ENTRIES) {
          break;
        }
        entries += next.entries().size();
        frames++;
      }
      batch = frames == 1 ? queue.peek() : joined(frames, entries);
      state = State.COMMITTING;
    }
    CompletableFuture<CommitOutcome> commit;
    try {
      commit = sink.commit(batch).toCompletableFuture();
    } catch (RuntimeException e) {
      commit = CompletableFuture.failedFuture(e);
    }
    int joined = frames;
    // finished() handles the commit's failure; what it throws itself is logged here, not lost
    // with the future.
    CompletableFuture<?> unused =
        commit.whenComplete(
            (outcome, error) -> {
              try {
                finished(batch, joined, outcome, error);
              } catch (RuntimeException e) {
                log.error(
                    "Account '{}' (agent '{}'): handling the commit up to sequence {} failed",
                    account,
                    agentId,
                    batch.lastSequence(),
                    e);
              }
            });
  }

  /** The first {@code frames} queued batches as one, in stream order. */
  @GuardedBy("this")
  private SinkBatch joined(int frames, int entries) {
    List<SinkEntry> joined = new ArrayList<>(entries);
    Iterator<SinkBatch> queued = queue.iterator();
    for (int i = 0; i < frames; i++) {
      joined.addAll(queued.next().entries());
    }
    return new SinkBatch(account, joined);
  }

  private void finished(SinkBatch batch, int frames, CommitOutcome outcome, Throwable error) {
    int attempt;
    synchronized (this) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.QUEUED; // the next commit starts now, or after the retry's delay
      if (error == null) {
        failures = 0;
        for (int i = 0; i < frames; i++) {
          queue.poll(); // still there: only close() empties the queue, and then this is not reached
        }
      } else {
        failures++;
      }
      attempt = failures;
    }
    if (error != null) {
      Duration delay = RETRIES.delay(attempt);
      log.warn(
          "Account '{}' (agent '{}'): committing up to sequence {} failed (attempt {}), retrying in"
              + " {} ms: {}",
          account,
          agentId,
          batch.lastSequence(),
          attempt,
          delay.toMillis(),
          error.toString());
      // The task only hands commitNext to the executor, which refuses it only once shut down.
      ScheduledFuture<?> unused =
          scheduler.schedule(
              () -> executor.execute(this::commitNext), delay.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    committed.accept(batch, frames, outcome == null ? CommitOutcome.STORED : outcome);
    executor.execute(this::commitNext);
  }
}
