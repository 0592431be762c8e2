package io.spinagent.plugin.grpc.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's intake of its accounts' entries, under inbound flow control (as in grpc-java's
 * manualflowcontrol example): each account's batches go to its own {@link AccountPipeline}, and the
 * next frame is read only while fewer than {@code maxPendingBatches} batches of the session await
 * their commit. So a slow database slows this agent, through HTTP/2 flow control all the way back
 * to its outbox, and nobody else. Entries an agent sends again within a session (a replay) are
 * taken once.
 */
final class AccountIntake {

  private static final Logger log = LoggerFactory.getLogger(AccountIntake.class);

  /**
   * Makes the pipeline of an account, which reports each commit to {@code committed} and asks
   * {@code stalled} whether the session waits for commits before it reads on.
   */
  @FunctionalInterface
  interface Pipelines {
    AccountPipeline open(
        String account, BooleanSupplier stalled, AccountPipeline.Committed committed);
  }

  /** A batch of an account was committed, with this outcome. */
  @FunctionalInterface
  interface Committed {
    void committed(String account, SinkBatch batch, CommitOutcome outcome);
  }

  private final int maxPendingBatches;
  private final Runnable readNext;
  private final Pipelines pipelines;
  private final Committed report;

  @GuardedBy("this")
  private final Map<String, AccountPipeline> byAccount = new HashMap<>();

  @GuardedBy("this")
  private final Map<String, Long> lastReceivedSequence = new HashMap<>();

  @GuardedBy("this")
  private int pendingBatches;

  @GuardedBy("this")
  private boolean readDeferred;

  @GuardedBy("this")
  private boolean closed;

  /**
   * @param readNext asks the transport for the agent's next frame
   * @param pipelines makes an account's pipeline when the account's first batch comes
   * @param report told of each commit, before the session reads on because of it
   */
  AccountIntake(int maxPendingBatches, Runnable readNext, Pipelines pipelines, Committed report) {
    this.maxPendingBatches = maxPendingBatches;
    this.readNext = readNext;
    this.pipelines = pipelines;
    this.report = report;
  }

  /**
   * Hands the account's entries (in sequence order) to its pipeline, without those at or below the
   * last sequence taken: sequences only grow within a session. Nothing is taken once closed.
   */
  void submit(String account, List<SinkEntry> entries) {
    List<SinkEntry> fresh = newEntries(account, entries);
    if (log.isDebugEnabled() && !entries.isEmpty()) {
      log.debug(
          "Account '{}': received sequences {} to {} ({} entries, {} not taken before)",
          account,
          entries.get(0).sequence(),
          entries.get(entries.size() - 1).sequence(),
          entries.size(),
          fresh.size());
    }
    if (fresh.isEmpty()) {
      return; // a replay of what this session already took
    }
    AccountPipeline pipeline;
    synchronized (this) {
      if (closed) {
        return;
      }
      pendingBatches++;
      pipeline =
          byAccount.computeIfAbsent(
              account,
              a ->
                  pipelines.open(
                      a,
                      this::readingDeferred,
                      (batch, frames, outcome) -> committed(a, batch, frames, outcome)));
    }
    pipeline.submit(new SinkBatch(account, fresh));
  }

  /**
   * Reads the agent's next frame, or defers it while too many batches await their commit; then
   * pipelines waiting for their commit interval commit at once, since waiting would only stall the
   * agent.
   */
  void readNext() {
    List<AccountPipeline> waiting;
    synchronized (this) {
      if (closed) {
        return;
      }
      if (pendingBatches < maxPendingBatches) {
        waiting = null;
      } else if (readDeferred) {
        return;
      } else {
        readDeferred = true;
        waiting = new ArrayList<>(byAccount.values());
      }
    }
    if (waiting == null) {
      readNext.run();
    } else {
      waiting.forEach(AccountPipeline::sessionStalled);
    }
  }

  /** Whether the session stopped reading the agent's frames until its batches are committed. */
  synchronized boolean readingDeferred() {
    return readDeferred;
  }

  /**
   * The agent no longer streams {@code account}: its pipeline stops (its batches no longer count as
   * awaiting their commit), and a later batch of the account starts afresh.
   */
  void remove(String account) {
    AccountPipeline pipeline;
    synchronized (this) {
      lastReceivedSequence.remove(account);
      pipeline = byAccount.remove(account);
    }
    if (pipeline != null) {
      release(pipeline.close());
    }
  }

  /**
   * Takes nothing more and reads no further frame; returns the pipelines, for the session to stop
   * when it has told the others that it ended.
   */
  synchronized List<AccountPipeline> close() {
    closed = true;
    return new ArrayList<>(byAccount.values());
  }

  private synchronized List<SinkEntry> newEntries(String account, List<SinkEntry> entries) {
    long last = lastReceivedSequence.getOrDefault(account, 0L);
    List<SinkEntry> fresh = new ArrayList<>(entries.size());
    for (SinkEntry entry : entries) {
      if (entry.sequence() > last) {
        fresh.add(entry);
        last = entry.sequence();
      }
    }
    lastReceivedSequence.put(account, last);
    return fresh;
  }

  /** Reports the commit of {@code frames} batches, then reads on if reading waited for it. */
  private void committed(String account, SinkBatch batch, int frames, CommitOutcome outcome) {
    report.committed(account, batch, outcome);
    release(frames);
  }

  /** Counts {@code batches} as no longer awaiting their commit; reads on if reading waited. */
  private void release(int batches) {
    boolean resume;
    synchronized (this) {
      pendingBatches -= batches;
      resume = readDeferred && !closed && pendingBatches < maxPendingBatches;
      if (resume) {
        readDeferred = false;
      }
    }
    if (resume) {
      readNext.run();
    }
  }
}
