package io.spinagent.agent.stream;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.protocol.v1.WatchProgress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes not yet acknowledged by Clouddriver, per account, in sequence order: what makes delivery
 * at-least-once across disconnects.
 *
 * <ul>
 *   <li><b>Latest state wins.</b> Per object only the newest change is kept; it takes the account's
 *       next sequence number, so an object updated while its previous change is in flight is sent
 *       again. A delete replaces an upsert and an upsert a delete, so a delete is never lost: only
 *       a later state of the same object can replace it.
 *   <li><b>Resync markers</b> share the sequence space, are never coalesced, and pin the changes
 *       before them: a change listed between BEGIN and END is not moved past END by a later update,
 *       or the plugin would sweep the object at END as "not listed".
 *   <li><b>Watch progress</b> (protocol version 2) shares the sequence space too, and is coalesced
 *       per kind like objects: only the latest progress of a kind is kept. It never waits for space
 *       (there is at most one per kind), so it can be reported from a timer.
 *   <li><b>Acks are cumulative</b>: {@link #acknowledge} removes every entry whose <em>current</em>
 *       sequence is at or below the ack.
 *   <li><b>Bounded in bytes.</b> A put that would exceed {@code maxBytes} blocks its producer until
 *       acknowledgements free space, so a slow Clouddriver slows the watches instead of filling the
 *       heap. Nothing is dropped. A single entry larger than the bound is admitted when the outbox
 *       is otherwise empty, so no producer waits forever.
 *   <li><b>Sequences survive restarts.</b> The plugin remembers the highest sequence it committed
 *       per agent id and account, and may tell a reconnecting agent to drop everything at or below
 *       it. An account's counter therefore starts at the wall clock in microseconds when the
 *       account is first used, which is above anything an earlier run of the agent issued unless
 *       that run averaged more than one change per microsecond.
 * </ul>
 *
 * <p>Longer than most classes because every operation keeps the same per-account indexes (sequence
 * order, latest per object, markers, progress) consistent under one lock; split up, each part would
 * need the others' invariants.
 *
 * <p>Thread-safe. Producers call {@link #put}, {@link #putResyncMarker} and {@link #putProgress};
 * the stream reads with {@link #entriesAfter} and applies {@link #acknowledge}.
 */
public final class Outbox {

  private static final Logger log = LoggerFactory.getLogger(Outbox.class);

  private final long maxBytes;
  private final LongSupplier sequenceSeed;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition spaceFreed = lock.newCondition();
  private final Map<String, AccountEntries> accounts = new HashMap<>();
  private volatile Runnable entriesAdded = () -> {};

  @GuardedBy("lock")
  private long bytes;

  @GuardedBy("lock")
  private int size;

  @GuardedBy("lock")
  private boolean closed;

  @GuardedBy("lock")
  private long blockedPuts;

  @GuardedBy("lock")
  private long blockedNanos;

  /** An outbox whose sequences start at the system clock in microseconds. */
  public Outbox(long maxBytes) {
    this(maxBytes, Clock.systemUTC());
  }

  public Outbox(long maxBytes, Clock clock) {
    this(maxBytes, () -> epochMicros(clock.instant()));
  }

  /**
   * @param sequenceSeed gives an account's first sequence number minus one, when the account is
   *     first used; must grow across restarts of the agent
   */
  public Outbox(long maxBytes, LongSupplier sequenceSeed) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.sequenceSeed = Objects.requireNonNull(sequenceSeed, "sequenceSeed");
  }

  /**
   * Holds {@code change} as the latest state of its object, replacing any earlier one, with the
   * account's next sequence number (the one in {@code change} is ignored). Blocks while the outbox
   * is full.
   *
   * @return the sequence assigned, or 0 when the account is {@linkplain #suspend suspended} and the
   *     change was not kept
   * @throws InterruptedException if interrupted while waiting for space
   * @throws IllegalStateException if the outbox is closed
   */
  public long put(String account, ObjectChange change) throws InterruptedException {
    Objects.requireNonNull(account, "account");
    Objects.requireNonNull(change, "change");
    ObjectKey key = ObjectKey.of(change);
    long entryBytes = change.getSerializedSize() + OutboxEntry.OVERHEAD_BYTES;
    long sequence;
    lock.lock();
    try {
      AccountEntries entries = awaitSpace(account, entryBytes, key);
      if (entries == null) {
        return 0;
      }
      OutboxEntry.Change previous = entries.latest.get(key);
      if (previous != null && !entries.pinnedByMarker(previous)) {
        remove(entries, previous);
      }
      sequence = entries.nextSequence();
      OutboxEntry.Change entry =
          new OutboxEntry.Change(
              account, change.toBuilder().setSequence(sequence).build(), entryBytes);
      entries.bySequence.put(sequence, entry);
      entries.latest.put(key, entry);
      bytes += entryBytes;
      size++;
    } finally {
      lock.unlock();
    }
    if (log.isTraceEnabled()) {
      log.trace(
          "Account '{}': {} of {} {}/{} at resourceVersion {} is sequence {}",
          account,
          change.getType() == ChangeType.CHANGE_TYPE_DELETE ? "delete" : "upsert",
          key.kind(),
          key.namespace(),
          key.name(),
          change.getResourceVersion(),
          sequence);
    }
    entriesAdded.run();
    return sequence;
  }

  /**
   * Appends a resync marker with the account's next sequence number. Blocks while the outbox is
   * full.
   *
   * @return the sequence assigned, or 0 when the account is suspended
   */
  public long putResyncMarker(String account, Kind kind, ResyncPhase phase, String resyncId)
      throws InterruptedException {
    Objects.requireNonNull(account, "account");
    ResyncMarker.Builder marker =
        ResyncMarker.newBuilder()
            .setAccount(account)
            .setKind(kind)
            .setPhase(phase)
            .setResyncId(resyncId);
    long entryBytes = marker.build().getSerializedSize() + 10 + OutboxEntry.OVERHEAD_BYTES;
    long sequence;
    lock.lock();
    try {
      AccountEntries entries = awaitSpace(account, entryBytes, null);
      if (entries == null) {
        return 0;
      }
      sequence = entries.nextSequence();
      entries.bySequence.put(
          sequence,
          new OutboxEntry.Marker(account, marker.setSequence(sequence).build(), entryBytes));
      entries.markerSequences.put(sequence, kindKey(kind));
      bytes += entryBytes;
      size++;
    } finally {
      lock.unlock();
    }
    entriesAdded.run();
    return sequence;
  }

  /**
   * Records that every change of {@code kind} up to {@code resourceVersion} has been put (protocol
   * version 2's WatchProgress), with the account's next sequence number, replacing the kind's
   * earlier progress if it is still held. Never waits for space: there is at most one per kind.
   *
   * @return the sequence assigned, or 0 when the account is suspended or the outbox is closed
   */
  public long putProgress(String account, Kind kind, String resourceVersion) {
    Objects.requireNonNull(account, "account");
    WatchProgress.Builder progress =
        WatchProgress.newBuilder().setKind(kind).setResourceVersion(resourceVersion);
    long entryBytes = progress.build().getSerializedSize() + 10 + OutboxEntry.OVERHEAD_BYTES;
    String kindKey = kindKey(kind);
    long sequence;
    lock.lock();
    try {
      if (closed) {
        return 0;
      }
      AccountEntries entries = entries(account);
      if (entries.suspended) {
        return 0;
      }
      OutboxEntry.Progress previous = entries.progress.get(kindKey);
      if (previous != null) {
        remove(entries, previous);
      }
      sequence = entries.nextSequence();
      OutboxEntry.Progress entry =
          new OutboxEntry.Progress(account, progress.setSequence(sequence).build(), entryBytes);
      entries.bySequence.put(sequence, entry);
      entries.progress.put(kindKey, entry);
      bytes += entryBytes;
      size++;
    } finally {
      lock.unlock();
    }
    entriesAdded.run();
    return sequence;
  }

  /**
   * Clouddriver committed everything of {@code account} up to {@code sequence}: removes every entry
   * whose current sequence is at or below it.
   *
   * @return how many entries were removed
   */
  public int acknowledge(String account, long sequence) {
    lock.lock();
    try {
      AccountEntries entries = accounts.get(account);
      if (entries == null) {
        return 0;
      }
      int removed = 0;
      for (Iterator<OutboxEntry> it =
              entries.bySequence.headMap(sequence, true).values().iterator();
          it.hasNext(); ) {
        OutboxEntry entry = it.next();
        it.remove();
        forget(entries, entry);
        removed++;
      }
      if (removed > 0) {
        spaceFreed.signalAll();
      }
      return removed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies the {@code committed_sequence} of a Welcome or decision: what an earlier session had
   * committed. A value above anything this run issued cannot refer to this run's entries (the clock
   * went backwards since an earlier run, or that run was unusually busy); then nothing is dropped
   * and the counter moves past it, so that the plugin does not mistake new changes for old ones.
   */
  public void applyCommitted(String account, long committedSequence) {
    if (committedSequence <= 0) {
      return;
    }
    lock.lock();
    try {
      AccountEntries entries = entries(account);
      if (committedSequence > entries.lastSequence) {
        log.warn(
            "Account '{}': Clouddriver has committed sequence {} but this agent has issued only up"
                + " to {} (clock set back since an earlier run?); continuing after {}",
            account,
            committedSequence,
            entries.lastSequence,
            committedSequence);
        entries.lastSequence = committedSequence;
        return;
      }
    } finally {
      lock.unlock();
    }
    acknowledge(account, committedSequence);
  }

  /**
   * Up to {@code maxEntries} entries of {@code account} after {@code afterSequence}, in sequence
   * order, stopping before the total exceeds {@code maxBytes} (but at least one if there is one).
   */
  public List<OutboxEntry> entriesAfter(
      String account, long afterSequence, int maxEntries, long maxBytes) {
    lock.lock();
    try {
      AccountEntries entries = accounts.get(account);
      if (entries == null) {
        return List.of();
      }
      List<OutboxEntry> batch = new ArrayList<>();
      long batchBytes = 0;
      for (OutboxEntry entry : entries.bySequence.tailMap(afterSequence, false).values()) {
        if (batch.size() >= maxEntries
            || (!batch.isEmpty() && batchBytes + entry.bytes() > maxBytes)) {
          break;
        }
        batch.add(entry);
        batchBytes += entry.bytes();
      }
      return batch;
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@code account} has entries after {@code afterSequence}. */
  public boolean hasEntriesAfter(String account, long afterSequence) {
    lock.lock();
    try {
      AccountEntries entries = accounts.get(account);
      return entries != null && entries.bySequence.higherKey(afterSequence) != null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops everything held for {@code account} and ignores its puts until {@link #resume}: for an
   * account this agent does not stream (refused, standby, removed). Whoever streams it later lists
   * it, or watches from the plugin's resume points, which are below anything dropped here: the
   * dropped changes are moot either way.
   */
  public void suspend(String account) {
    lock.lock();
    try {
      AccountEntries entries = entries(account);
      entries.suspended = true;
      entries.suspensions++;
      entries.bySequence.values().forEach(entry -> forget(entries, entry));
      entries.bySequence.clear();
      spaceFreed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * How often {@code account} has been {@linkplain #suspend suspended}: a producer that kept
   * producing across a suspension knows from a changed count that some of its changes were dropped
   * unsent.
   */
  public long suspensions(String account) {
    return underLock(
        () -> {
          AccountEntries entries = accounts.get(account);
          return entries == null ? 0L : entries.suspensions;
        });
  }

  /** Accepts puts for {@code account} again. Its sequence numbers continue where they were. */
  public void resume(String account) {
    lock.lock();
    try {
      entries(account).suspended = false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until every entry has been acknowledged (or dropped), at most {@code timeout}: lets the
   * agent send what it holds before it stops.
   *
   * @return whether the outbox is empty
   */
  public boolean awaitEmpty(Duration timeout) throws InterruptedException {
    long left = timeout.toNanos();
    lock.lock();
    try {
      while (size > 0) {
        if (left <= 0) {
          return false;
        }
        left = spaceFreed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@link #close} was called: puts fail. */
  public boolean isClosed() {
    return counters().closed();
  }

  /** Wakes blocked producers, which then fail, and refuses further puts. */
  public void close() {
    lock.lock();
    try {
      closed = true;
      spaceFreed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called after every put, on the producer's thread, outside the outbox's lock. Must not block.
   */
  public void onEntriesAdded(Runnable listener) {
    this.entriesAdded = Objects.requireNonNull(listener, "listener");
  }

  public long maxBytes() {
    return maxBytes;
  }

  /** Bytes held, as counted against {@link #maxBytes()}. */
  public long bytes() {
    return counters().bytes();
  }

  /** Entries held, across accounts. */
  public int size() {
    return counters().size();
  }

  /** Entries held for one account. */
  public int size(String account) {
    return underLock(
        () -> {
          AccountEntries entries = accounts.get(account);
          return entries == null ? 0 : entries.bySequence.size();
        });
  }

  /** Puts that had to wait for space, since creation. */
  public long blockedPuts() {
    return counters().blockedPuts();
  }

  /** Total time producers spent waiting for space, in nanoseconds. */
  public long blockedNanos() {
    return counters().blockedNanos();
  }

  private Counters counters() {
    lock.lock();
    try {
      return new Counters(bytes, size, closed, blockedPuts, blockedNanos);
    } finally {
      lock.unlock();
    }
  }

  private <T> T underLock(Supplier<T> read) {
    lock.lock();
    try {
      return read.get();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until an entry of {@code entryBytes} fits, counting what replacing {@code key}'s current
   * entry would free. Returns null when the account is suspended.
   */
  @GuardedBy("lock")
  private AccountEntries awaitSpace(String account, long entryBytes, ObjectKey key)
      throws InterruptedException {
    long waitStarted = 0;
    try {
      while (true) {
        if (closed) {
          throw new IllegalStateException("the outbox is closed: the agent is stopping");
        }
        AccountEntries entries = entries(account);
        if (entries.suspended) {
          return null;
        }
        OutboxEntry.Change previous = key == null ? null : entries.latest.get(key);
        long freed = previous != null && !entries.pinnedByMarker(previous) ? previous.bytes() : 0;
        long others = bytes - freed;
        if (others + entryBytes <= maxBytes || others <= 0) {
          return entries;
        }
        if (waitStarted == 0) {
          waitStarted = System.nanoTime();
          blockedPuts++;
        }
        spaceFreed.await(1, TimeUnit.SECONDS);
      }
    } finally {
      if (waitStarted != 0) {
        blockedNanos += System.nanoTime() - waitStarted;
      }
    }
  }

  private AccountEntries entries(String account) {
    return accounts.computeIfAbsent(account, a -> new AccountEntries(sequenceSeed.getAsLong()));
  }

  @GuardedBy("lock")
  private void remove(AccountEntries entries, OutboxEntry entry) {
    entries.bySequence.remove(entry.sequence());
    forget(entries, entry);
  }

  /** Updates the indexes and counters for an entry already taken out of {@code bySequence}. */
  @GuardedBy("lock")
  private void forget(AccountEntries entries, OutboxEntry entry) {
    if (entry instanceof OutboxEntry.Change change) {
      entries.latest.remove(ObjectKey.of(change.change()), change);
    } else if (entry instanceof OutboxEntry.Progress progress) {
      entries.progress.remove(kindKey(progress.progress().getKind()), progress);
    } else {
      entries.markerSequences.remove(entry.sequence());
    }
    bytes -= entry.bytes();
    size--;
  }

  private static String kindKey(Kind kind) {
    return kind.getGroup() + "/" + kind.getKind();
  }

  private static long epochMicros(Instant now) {
    return TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + now.getNano() / 1_000;
  }

  private record Counters(
      long bytes, int size, boolean closed, long blockedPuts, long blockedNanos) {}

  /** One account's entries and counter. */
  private static final class AccountEntries {
    final NavigableMap<Long, OutboxEntry> bySequence = new TreeMap<>();

    /** The newest change per object; older ones may stay in {@link #bySequence} when pinned. */
    final Map<ObjectKey, OutboxEntry.Change> latest = new HashMap<>();

    /** Sequence of each marker held, to its "group/kind". */
    final NavigableMap<Long, String> markerSequences = new TreeMap<>();

    /** The progress held per "group/kind": at most one. */
    final Map<String, OutboxEntry.Progress> progress = new HashMap<>();

    long lastSequence;
    boolean suspended;
    long suspensions;

    AccountEntries(long seed) {
      this.lastSequence = Math.max(seed, 0);
    }

    long nextSequence() {
      return ++lastSequence;
    }

    /** A marker of the same kind after the entry must see it where it is. */
    boolean pinnedByMarker(OutboxEntry.Change entry) {
      if (markerSequences.isEmpty()) {
        return false;
      }
      return markerSequences
          .tailMap(entry.sequence(), false)
          .containsValue(kindKey(entry.change().getKind()));
    }
  }
}
