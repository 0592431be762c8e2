package io.spinagent.plugin.cache.sql;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * How many changes each account has handed the writer lately, and so whether it is <em>busy</em>: a
 * cluster that changes hundreds of objects a second, or one whose listing is being written.
 *
 * <p>Each account's count decays exponentially with a time constant of {@link #DECAY_NANOS} (one
 * second): for an account streaming r changes a second the count settles at about r, and a burst of
 * n changes counts n at first and about a third of n a second later. An account whose count is at
 * least {@link #BUSY_CHANGES} is busy. Accounts whose count has decayed below one are forgotten, so
 * the map holds only the accounts that wrote in the last few seconds.
 */
final class AccountVolumes {

  /** Changes (decayed) from which an account is busy: about 100 changes in the last second. */
  static final double BUSY_CHANGES = 100;

  /** The counts' time constant. */
  static final long DECAY_NANOS = 1_000_000_000L;

  /** Counts below this are forgotten. */
  private static final double FORGOTTEN = 1;

  @GuardedBy("this")
  private final Map<String, Volume> volumes = new HashMap<>();

  /** when the counts were last swept for forgotten accounts */
  @GuardedBy("this")
  private long sweptAt;

  private static final class Volume {
    double changes;
    long at;

    /** The count at {@code now}, decayed since it was last updated. */
    double at(long now) {
      long elapsed = now - at;
      return elapsed <= 0 ? changes : changes * Math.exp(-(double) elapsed / DECAY_NANOS);
    }
  }

  /** The account handed over {@code changes} changes at {@code now} ({@link System#nanoTime()}). */
  synchronized void add(String account, int changes, long now) {
    Volume volume = volumes.computeIfAbsent(account, a -> new Volume());
    volume.changes = volume.at(now) + changes;
    volume.at = now;
    if (now - sweptAt > DECAY_NANOS) {
      sweptAt = now;
      sweep(now);
    }
  }

  /** Whether the account has handed over at least {@link #BUSY_CHANGES} changes lately. */
  synchronized boolean isBusy(String account, long now) {
    Volume volume = volumes.get(account);
    return volume != null && volume.at(now) >= BUSY_CHANGES;
  }

  /** Accounts busy at {@code now}. */
  synchronized int busy(long now) {
    int busy = 0;
    for (Volume volume : volumes.values()) {
      if (volume.at(now) >= BUSY_CHANGES) {
        busy++;
      }
    }
    return busy;
  }

  /** Accounts remembered (for specs: they are forgotten once quiet). */
  synchronized int remembered() {
    return volumes.size();
  }

  @GuardedBy("this")
  private void sweep(long now) {
    for (Iterator<Volume> it = volumes.values().iterator(); it.hasNext(); ) {
      if (it.next().at(now) < FORGOTTEN) {
        it.remove();
      }
    }
  }
}
