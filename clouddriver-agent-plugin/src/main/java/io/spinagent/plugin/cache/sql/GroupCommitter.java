package io.spinagent.plugin.cache.sql;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.common.Backoff;
import io.spinagent.plugin.cache.CommitOutcome;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: the work of many accounts handed over close together shares one transaction.
 *
 * <ul>
 *   <li><b>Grouping.</b> A committer that is free takes what is queued — it never waits for more —
 *       up to {@link #MAX_GROUP_CHANGES} changes and {@link #MAX_GROUP_BYTES} bytes of objects. So
 *       under light load each batch commits on its own at once, and under load the batches that
 *       queued while the previous transaction ran share the next one. A purge runs alone.
 *   <li><b>Order.</b> An account's work is in at most one group at a time, taken in the order it
 *       was handed over (the account pipelines send one batch at a time anyway), so its changes are
 *       applied in stream order.
 *   <li><b>Fairness.</b> While other accounts stream too, a large batch is committed in slices
 *       ({@link BatchSlices}), one per group, so that no transaction carries much of one account
 *       and the other accounts' work is taken between two slices: a quiet account never waits long
 *       behind one that streams a lot. An account alone keeps its batches whole.
 *   <li><b>Lanes.</b> An account that handed over many changes lately ({@link AccountVolumes}: a
 *       cluster changing hundreds of objects a second, or a listing being written) is
 *       <em>busy</em>; the others are quiet. A group holds only busy or only quiet accounts' work,
 *       so that a quiet account's change never shares a transaction with a busy account's rows; a
 *       purge counts as busy.
 *   <li><b>Concurrency.</b> At most {@code committers} groups of each lane run at once, and at most
 *       {@code committers + 1} in all, each on a thread of the committers' pool: the extra one is
 *       there for the lane the others leave waiting, so that quiet accounts never wait for a busy
 *       account's transaction (nor busy accounts for an endless run of quiet ones). With only one
 *       lane streaming, {@code committers} groups run at a time.
 *   <li><b>Acknowledgement.</b> Each work's stage completes once the transaction that held it
 *       committed, with that account's own outcome.
 *   <li><b>Isolation.</b> A group whose transaction fails is retried in halves, recursively, so
 *       that only the work that fails alone fails (its pipeline retries it with backoff), and the
 *       others commit after a few more transactions. A failure to reach the database fails the
 *       whole group at once (every part would fail alike); a deadlock or serialization failure
 *       between concurrent groups runs the same group again; so does a missing table, once created.
 * </ul>
 */
final class GroupCommitter {

  private static final Logger log = LoggerFactory.getLogger(GroupCommitter.class);

  /** Changes in one group at most, unless a single batch has more. */
  static final int MAX_GROUP_CHANGES = 2_000;

  /** Bytes of object JSON in one group at most, unless a single batch has more. */
  static final long MAX_GROUP_BYTES = 8L << 20;

  /** How recently another account must have handed work over for the writer to be shared. */
  static final Duration SHARED_WINDOW = Duration.ofSeconds(1);

  private static final int MAX_REPAIRS = 32;
  private static final int MAX_CONFLICT_RETRIES = 5;

  /**
   * The pause before retrying a transaction that lost a conflict: 15 ms, 30 ms, 60 ms, … each
   * spread by two thirds of itself, so that the transactions that conflicted do not meet again.
   */
  private static final Backoff CONFLICT_PAUSES =
      Backoff.doubling(Duration.ofMillis(15), Duration.ofMillis(250))
          .withJitter(0.66, () -> ThreadLocalRandom.current().nextDouble());

  /** What commits a group: the writer's side of group commit. */
  interface Transactions {
    /** Readies the group's work (starts deriving its objects, creates tables it needs). */
    void prepare(List<Work> group);

    /**
     * Commits the group in one transaction, and returns each work's outcome in order (completing
     * none of them).
     */
    List<CommitOutcome> commit(List<Work> group);

    /**
     * After a failed attempt: drops what may be wrong now (remembered rows); true when it repaired
     * the failure (created missing tables), so that the same group should simply run again.
     */
    boolean failed(List<Work> group, RuntimeException failure);
  }

  /** Which accounts' work a group holds: see the class comment. */
  private enum Lane {
    QUIET,
    BUSY
  }

  /** A group taken, and its lane. */
  private record Group(List<Work> works, Lane lane) {}

  private final Transactions transactions;
  private final Executor committers;
  private final int maxCommitters;
  private final WriterMetrics metrics;
  private final LongSupplier nanoTime;
  private final AccountVolumes volumes = new AccountVolumes();

  @GuardedBy("this")
  private final ArrayDeque<Work> queue = new ArrayDeque<>();

  /** accounts whose work is in a group being committed */
  @GuardedBy("this")
  private final Set<String> committing = new HashSet<>();

  /** committers running (each until nothing it may take is queued) */
  @GuardedBy("this")
  private int running;

  /** groups being committed, by lane */
  @GuardedBy("this")
  private final Map<Lane, Integer> groups = new EnumMap<>(Lane.class);

  /** the account of the last work handed over */
  @GuardedBy("this")
  private String lastAccount;

  /**
   * {@link System#nanoTime()} when work of another account than the previous one arrived; at first,
   * a window ago
   */
  @GuardedBy("this")
  private long otherAccountAt;

  /**
   * @param committers runs the committers: at least {@code maxCommitters + 1} threads (see the
   *     class comment)
   */
  GroupCommitter(
      Transactions transactions, Executor committers, int maxCommitters, WriterMetrics metrics) {
    this(transactions, committers, maxCommitters, metrics, System::nanoTime);
  }

  GroupCommitter(
      Transactions transactions,
      Executor committers,
      int maxCommitters,
      WriterMetrics metrics,
      LongSupplier nanoTime) {
    this.transactions = transactions;
    this.committers = committers;
    this.maxCommitters = Math.max(1, maxCommitters);
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    this.otherAccountAt = nanoTime.getAsLong() - SHARED_WINDOW.toNanos();
    metrics.busyAccounts(() -> volumes.busy(nanoTime.getAsLong()));
  }

  void submit(Work work) {
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (work instanceof Work.Batch batch) {
        volumes.add(batch.account(), batch.entries().size(), now);
      }
      queue.addAll(isShared(work.account(), now) ? BatchSlices.of(work) : List.of(work));
      if (running > maxCommitters || !isWaiting(now)) {
        return; // a running committer takes it next
      }
      running++;
    }
    startCommitter();
  }

  /** Runs one more committer; called having counted it in {@link #running}. */
  private void startCommitter() {
    try {
      committers.execute(this::commitWhileQueued);
    } catch (RejectedExecutionException e) {
      List<Work> stranded;
      synchronized (this) {
        running--;
        stranded = running == 0 ? drain() : List.of();
      }
      // shut down: its agent sends it again to whichever replica serves the account next
      stranded.forEach(
          w -> w.result().completeExceptionally(new IllegalStateException("the writer stopped")));
    }
  }

  /**
   * Whether another account than {@code account} handed work over within {@link #SHARED_WINDOW}:
   * then a large batch is sliced, so that the others do not wait for it. An account streaming alone
   * (one cluster's initial listing, a benchmark) keeps its batches whole, each in one transaction,
   * which is faster.
   */
  @GuardedBy("this")
  private boolean isShared(String account, long now) {
    if (lastAccount != null && !lastAccount.equals(account)) {
      otherAccountAt = now;
    }
    lastAccount = account;
    return now - otherAccountAt < SHARED_WINDOW.toNanos();
  }

  /** A committer's life: groups, until nothing it may take is queued. */
  private void commitWhileQueued() {
    Group previous = null;
    while (true) {
      List<Work> group;
      boolean another;
      synchronized (this) {
        if (previous != null) {
          groups.merge(previous.lane(), -1, Integer::sum);
        }
        if (Thread.currentThread().isInterrupted()) {
          running--;
          List<Work> stranded = drain();
          stranded.forEach(
              w -> w.result().completeExceptionally(new InterruptedException("writer stopped")));
          return;
        }
        long now = nanoTime.getAsLong();
        previous = take(now);
        if (previous == null) {
          running--;
          return;
        }
        group = previous.works();
        // the other lane's work left queued gets a committer of its own
        another = running <= maxCommitters && isWaiting(now);
        if (another) {
          running++;
        }
      }
      if (another) {
        startCommitter();
      }
      long now = nanoTime.getAsLong();
      for (Work work : group) {
        if (work instanceof Work.Batch batch) {
          metrics.queued(now - batch.handedOverNanos());
        }
      }
      try {
        commit(group);
      } catch (RuntimeException | Error e) {
        log.error("Committing a group of {} failed unexpectedly", group.size(), e);
        fail(group, e);
      }
    }
  }

  /**
   * The next group, or null: queued work of accounts not being committed, in queue order (an
   * account's later work stays behind its earlier), of the lane of the first work that may be
   * taken, within the group's limits.
   */
  @GuardedBy("this")
  private Group take(long now) {
    List<Work> group = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Lane lane = null;
    long changes = 0;
    long bytes = 0;
    for (Iterator<Work> it = queue.iterator(); it.hasNext(); ) {
      Work work = it.next();
      if (work.result().isDone()) {
        it.remove(); // a later slice of a batch whose earlier slice failed
        continue;
      }
      if (!isTakeable(work, seen)) {
        continue;
      }
      Lane its = lane(work, now);
      if (lane == null && hasRoom(its)) {
        lane = its;
      }
      if (its != lane) {
        continue;
      }
      if (work instanceof Work.Purge) {
        if (group.isEmpty()) {
          it.remove();
          group.add(work);
          break;
        }
        continue;
      }
      Work.Batch batch = (Work.Batch) work;
      int size = batch.entries().size();
      if (!group.isEmpty()
          && (changes + size > MAX_GROUP_CHANGES || bytes + batch.bytes() > MAX_GROUP_BYTES)) {
        break;
      }
      it.remove();
      group.add(work);
      changes += size;
      bytes += batch.bytes();
    }
    if (lane == null) {
      return null;
    }
    groups.merge(lane, 1, Integer::sum);
    group.forEach(w -> committing.add(w.account()));
    return new Group(group, lane);
  }

  /**
   * Whether a committer started now would find a group: queued work that may be taken, of a lane
   * with room for one more group.
   */
  @GuardedBy("this")
  private boolean isWaiting(long now) {
    if (!hasRoom(Lane.QUIET) && !hasRoom(Lane.BUSY)) {
      return false; // no group could start, whatever is queued
    }
    Set<String> seen = new HashSet<>();
    for (Work work : queue) {
      if (!work.result().isDone() && isTakeable(work, seen) && hasRoom(lane(work, now))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the work is its account's first queued work ({@code seen} collects the accounts met in
   * queue order), its account is in no group being committed, and it is not a slice whose previous
   * slice is still being committed.
   */
  @GuardedBy("this")
  private boolean isTakeable(Work work, Set<String> seen) {
    return seen.add(work.account())
        && !committing.contains(work.account())
        && !(work instanceof Work.Batch slice && !slice.isReady());
  }

  @GuardedBy("this")
  private Lane lane(Work work, long now) {
    return work instanceof Work.Purge || volumes.isBusy(work.account(), now)
        ? Lane.BUSY
        : Lane.QUIET;
  }

  @GuardedBy("this")
  private boolean hasRoom(Lane lane) {
    return groups.getOrDefault(lane, 0) < maxCommitters;
  }

  @GuardedBy("this")
  private List<Work> drain() {
    List<Work> all = new ArrayList<>(queue);
    queue.clear();
    return all;
  }

  /** Commits the group, retrying and isolating as the class says; completes every stage. */
  private void commit(List<Work> group) {
    try {
      transactions.prepare(group);
    } catch (RuntimeException e) {
      fail(group, e);
      return;
    }
    int repairs = 0;
    int conflicts = 0;
    while (true) {
      if (Thread.currentThread().isInterrupted()) {
        fail(group, new InterruptedException("the writer is stopping"));
        return;
      }
      List<CommitOutcome> outcomes;
      try {
        outcomes = transactions.commit(group);
      } catch (RuntimeException e) {
        if (transactions.failed(group, e) && ++repairs < MAX_REPAIRS) {
          metrics.retried("missing_table");
          continue;
        }
        if (isConflict(e) && ++conflicts < MAX_CONFLICT_RETRIES) {
          metrics.retried("conflict");
          pause(conflicts);
          continue;
        }
        if (group.size() > 1 && !isConnectionFailure(e)) {
          metrics.split();
          log.warn(
              "A transaction of {} accounts' batches failed ({}); retrying them in halves, so that"
                  + " only what fails alone fails",
              group.size(),
              e.toString());
          commit(group.subList(0, group.size() / 2));
          commit(group.subList(group.size() / 2, group.size()));
          return;
        }
        fail(group, e);
        return;
      }
      for (int i = 0; i < group.size(); i++) {
        Work work = group.get(i);
        release(work);
        work.result().complete(outcomes.get(i));
      }
      return;
    }
  }

  private void fail(List<Work> group, Throwable error) {
    metrics.failed(group.size());
    if (group.size() > 1) {
      log.warn(
          "Committing the batches of accounts {} failed: {}",
          group.stream().map(Work::account).collect(Collectors.joining(", ")),
          error.toString());
    }
    for (Work work : group) {
      release(work);
      work.result().completeExceptionally(error);
    }
  }

  /** The account's next work may be taken (before its stage completes, which may hand it over). */
  private synchronized void release(Work work) {
    committing.remove(work.account());
  }

  private static void pause(int conflicts) {
    try {
      Thread.sleep(CONFLICT_PAUSES.delay(conflicts).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A deadlock, a serialization failure or a lock wait timeout: another transaction's doing. */
  static boolean isConflict(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        String state = sql.getSQLState();
        if ("40001".equals(state)
            || "40P01".equals(state)
            || sql.getErrorCode() == 1213 // MySQL: deadlock
            || sql.getErrorCode() == 1205) { // MySQL: lock wait timeout
          return true;
        }
      }
    }
    return false;
  }

  /** The database could not be reached or the connection broke: every transaction would fail. */
  static boolean isConnectionFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException
          || t instanceof SQLNonTransientConnectionException
          || t instanceof SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && sql.getSQLState().startsWith("08")) {
        return true;
      }
    }
    return false;
  }
}
