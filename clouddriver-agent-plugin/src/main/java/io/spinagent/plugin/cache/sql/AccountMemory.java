package io.spinagent.plugin.cache.sql;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.spinagent.plugin.cache.format.RelationshipIndex;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What the writer keeps in memory of one account between its transactions. The relationship index
 * is changed only by the transaction that holds the account (the committers' queue gives it to one
 * at a time), and rebuilt from the cache's rows when it cannot be trusted ({@link IndexRebuild});
 * the rest is read into a {@link Taken} when a transaction starts and replaced by what it leaves
 * once it has committed, so that a failed transaction leaves no trace here, and a claim meanwhile
 * ({@link #claimed}) is never overwritten.
 */
final class AccountMemory {

  /**
   * A complete listing of one kind in progress: its id, and the keys of the objects it named so
   * far, which its END keeps (everything else of the kind goes).
   */
  record Listing(String resyncId, Set<String> listed) {}

  /** What a transaction started from. */
  record Taken(
      int claims,
      CommittedRows.Scope scope,
      boolean indexTrusted,
      Map<String, Listing> listings,
      Set<String> awaitingListing,
      Map<String, Long> logical) {}

  final String account;

  /** what the account's cached objects say about each other */
  private RelationshipIndex index;

  /** "group/kind" → keys in the index (to sweep index entries a listing did not confirm) */
  private final Map<String, Set<String>> indexed = new HashMap<>();

  /** listings in progress by "group/kind" */
  @GuardedBy("this")
  private Map<String, Listing> listings = new HashMap<>();

  /**
   * "group/kind" of kinds whose listing's END came without its BEGIN: their progress is not stored
   * as a resume point until a complete listing has swept them
   */
  @GuardedBy("this")
  private Set<String> awaitingListing = new HashSet<>();

  /** logical key → when this process last wrote its row */
  @GuardedBy("this")
  private Map<String, Long> logical = new HashMap<>();

  /** the rows {@link CommittedRows} remembers of this account; replaced when they may be wrong */
  @GuardedBy("this")
  private CommittedRows.Scope scope;

  /**
   * whether the index holds every object the cache holds of the account: not before it was rebuilt
   * from the cache in this process, nor after a claim (another replica may have written since)
   */
  @GuardedBy("this")
  private boolean indexTrusted;

  /**
   * claims of the account by a stream, counted so that a transaction can tell one came meanwhile
   */
  @GuardedBy("this")
  private int claims;

  AccountMemory(String account) {
    this.account = account;
    this.index = new RelationshipIndex(account);
    this.scope = new CommittedRows.Scope(account);
  }

  RelationshipIndex index() {
    return index;
  }

  /** The keys of a kind in the index. */
  Set<String> indexed(String kindKey) {
    return indexed.computeIfAbsent(kindKey, k -> new HashSet<>());
  }

  /** Empties the index, to be rebuilt. */
  void resetIndex() {
    index = new RelationshipIndex(account);
    indexed.clear();
  }

  /** Copies what a transaction changes, for it to change. */
  synchronized Taken take() {
    return new Taken(
        claims,
        scope,
        indexTrusted,
        new HashMap<>(listings),
        new HashSet<>(awaitingListing),
        logical);
  }

  /**
   * What a committed transaction leaves. If the account was claimed meanwhile, listings in progress
   * are dropped instead (another replica may have written between BEGIN and END), and the index
   * stays untrusted.
   */
  synchronized void install(
      Taken taken,
      boolean indexRebuilt,
      Map<String, Listing> listings,
      Set<String> awaitingListing,
      Map<String, Long> logical) {
    if (taken.claims() == claims) {
      this.listings = listings;
      this.indexTrusted = taken.indexTrusted() || indexRebuilt;
    }
    this.awaitingListing = awaitingListing;
    this.logical = logical;
  }

  /**
   * A stream claimed the account (perhaps after another replica served it), or it is no longer
   * served here: another replica may write it next, so what is remembered of its rows, its index,
   * and any listing begun can no longer be trusted.
   */
  synchronized void claimed() {
    claims++;
    listings = new HashMap<>();
    scope = new CommittedRows.Scope(account);
    indexTrusted = false;
  }

  /**
   * Leaves every row remembered of the account behind (never to be found again, evicted in time): a
   * transaction of it failed, and may or may not have committed.
   */
  synchronized void forgetCommittedRows() {
    scope = new CommittedRows.Scope(account);
  }

  synchronized boolean isCurrent(CommittedRows.Scope taken) {
    return scope == taken;
  }
}
