package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.ResourceVersions;
import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.format.ManifestCacheRecords;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.RefusedChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.protocol.v1.WatchProgress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One account's batch (or purge) in one transaction of a group: the writer's rules, applied to each
 * entry in stream order. A change older than its object's stored resourceVersion is skipped; one at
 * the stored resourceVersion, in the same cache format, writes nothing (a listing that finds
 * nothing changed rewrites nothing); a delete leaves a tombstone; an object's change writes its own
 * body row and its own relationship rows, both directions, from the account's relationship index; a
 * complete listing (BEGIN … END) sweeps at its END what it did not name, if this process saw its
 * BEGIN (otherwise the kind is to be listed again); a progress becomes the kind's resume point.
 * Changes that cannot be stored are refused, and reported with the commit.
 */
final class AccountWork {

  private static final Logger log = LoggerFactory.getLogger(AccountWork.class);

  /** A resume point to store, or ({@code progress} null) to delete. */
  record ResumeChange(Kind kind, WatchProgress progress) {}

  private final AccountMemory state;
  private final String account;
  private final String agent;
  private final GroupTransaction.Parts tx;
  private final AccountMemory.Taken taken;
  private final int format;
  private final LogicalRows.Account logical;
  private final Map<String, AccountMemory.Listing> listings;
  private final Set<String> awaitingListing;
  private final List<RefusedChange> refused = new ArrayList<>();
  private final Map<String, Kind> relistRequired = new LinkedHashMap<>();
  private final Map<String, ResumeChange> resumePoints = new LinkedHashMap<>();
  private boolean purged;
  private boolean indexRebuilt;
  private int unchanged;

  AccountWork(AccountMemory state, FormatOptions options, GroupTransaction.Parts tx) {
    this.state = state;
    this.account = state.account;
    this.agent = tx.tables().agentColumn(account);
    this.tx = tx;
    this.taken = state.take();
    this.format = Derivation.formatOf(options);
    this.logical = tx.logical().account(account, taken.scope(), taken.logical());
    this.listings = taken.listings();
    this.awaitingListing = taken.awaitingListing();
  }

  String account() {
    return account;
  }

  CommittedRows.Scope scope() {
    return taken.scope();
  }

  AccountMemory memory() {
    return state;
  }

  /** Whether the account's relationship index holds what the cache holds of it. */
  boolean indexTrusted() {
    return taken.indexTrusted();
  }

  /** The index was rebuilt from the cache in this transaction ({@link IndexRebuild}). */
  void indexRebuilt() {
    indexRebuilt = true;
  }

  // ------------------------------------------------------------------ changes

  /** Where spinagent_objects keeps the object of a change, or null if its names are too long. */
  ObjectVersions.Key objectKey(ObjectChange c) {
    Kind kind = c.getKind();
    if (account.length() > ObjectVersions.MAX_ACCOUNT
        || kind.getGroup().length() > ObjectVersions.MAX_GROUP
        || kind.getKind().length() > ObjectVersions.MAX_KIND
        || c.getNamespace().length() > ObjectVersions.MAX_NAMESPACE
        || c.getName().length() > ObjectVersions.MAX_NAME
        || c.getResourceVersion().length() > ObjectVersions.MAX_RESOURCE_VERSION) {
      return null;
    }
    return ObjectVersions.Key.of(account, kind, c.getNamespace(), c.getName());
  }

  void change(ObjectChange c, Derivation.Derived derived) {
    Kind kind = c.getKind();
    String type = CacheTables.typeOf(kind);
    if (!tx.kinds().caches(type)) {
      return;
    }
    ObjectVersions.Key objectKey = objectKey(c);
    if (objectKey == null) {
      refuse(
          c,
          new Derivation.Refusal(
              Derivation.Reason.TOO_LONG, "names too long for spinagent_objects"));
      return;
    }
    String key = CacheKeys.infrastructure(type, account, c.getNamespace(), c.getName());
    String kindKey = kindKey(kind);
    AccountMemory.Listing listing = listings.get(kindKey);
    if (listing != null) {
      listing.listed().add(key);
    }
    ObjectVersions.Version stored = tx.versions().get(objectKey, taken.scope());
    String resourceVersion = c.getResourceVersion();
    boolean delete = c.getType() == ChangeType.CHANGE_TYPE_DELETE;
    if (stored != null) {
      if (ResourceVersions.isOlder(resourceVersion, stored.resourceVersion())) {
        return;
      }
      if (delete
          ? stored.deleted()
              && !resourceVersion.isEmpty()
              && resourceVersion.equals(stored.resourceVersion())
          : stored.isCurrent(resourceVersion, format)) {
        unchanged(key, type, kindKey, derived);
        return;
      }
    }
    tx.versions().save(objectKey, new ObjectVersions.Version(resourceVersion, delete, format));
    if (delete || derived.skipped()) {
      uncache(key, type, kindKey);
      return;
    }
    Derivation.Refusal refusal = derived.refusal();
    int maxId = tx.tables().dialect().maxIdLength;
    if (refusal == null && key.length() > maxId) {
      // cats-sql drops such ids too (with an error log); writing one would fail the batch forever
      refusal =
          new Derivation.Refusal(
              Derivation.Reason.TOO_LONG,
              "its key is longer than the " + maxId + " characters of the id column");
    }
    if (refusal == null && !derived.records().key().equals(key)) {
      refusal =
          new Derivation.Refusal(
              Derivation.Reason.NAMES_ANOTHER_OBJECT, "its JSON names " + derived.records().key());
    }
    if (refusal != null) {
      // never retried into success: left out rather than block the account's stream
      refuse(c, refusal);
      uncache(key, type, kindKey);
      return;
    }
    state.index().put(derived.indexEntry());
    cache(derived, kindKey);
  }

  /**
   * An object whose rows are written from this very version already: nothing is written, but the
   * relationship index learns of it (after a restart the listing rebuilds the index), and the edges
   * to objects the index learnt of since are added.
   */
  private void unchanged(String key, String type, String kindKey, Derivation.Derived derived) {
    unchanged++;
    if (derived == null
        || derived.skipped()
        || derived.refusal() != null
        || key.length() > tx.tables().dialect().maxIdLength
        || !derived.records().key().equals(key)) {
      return;
    }
    state.index().put(derived.indexEntry());
    state.indexed(kindKey).add(key);
    tx.relationships()
        .addMissing(taken.scope(), key, type, relationshipsOf(key, derived.records()));
  }

  /** Writes an object's body and its relationship rows to the account's other objects. */
  private void cache(Derivation.Derived derived, String kindKey) {
    ManifestCacheRecords records = derived.records();
    String key = records.key();
    String type = records.type();
    state.indexed(kindKey).add(key);
    tx.tables().require(type);
    tx.bodies()
        .write(
            tx.tables().resourceTable(type),
            new BodyRows.Body(
                agent,
                key,
                records.infrastructure().applicationColumn(),
                derived.bodyHash(),
                derived.body()));
    String applicationKey = records.application().map(CacheRecord::id).orElse(null);
    if (applicationKey != null) {
      tx.logical().ensure(logical, applicationKey, CacheTypes.APPLICATIONS, null);
    }
    records
        .cluster()
        .ifPresent(
            cluster ->
                tx.logical().ensure(logical, cluster.id(), CacheTypes.CLUSTERS, applicationKey));
    tx.logical()
        .unlinked(
            logical,
            tx.relationships().sync(taken.scope(), key, type, relationshipsOf(key, records)));
  }

  private void uncache(String key, String type, String kindKey) {
    state.index().remove(key);
    state.indexed(kindKey).remove(key);
    tx.tables().require(type);
    tx.bodies().delete(tx.tables().resourceTable(type), agent, key);
    tx.logical()
        .unlinked(
            logical,
            tx.relationships()
                .sync(taken.scope(), key, type, flatten(state.index().relationshipsOf(key))));
  }

  /** Its own relationships and those the index knows, as related key → its type. */
  private Map<String, String> relationshipsOf(String key, ManifestCacheRecords records) {
    Map<String, String> edges = flatten(records.infrastructure().relationships());
    edges.putAll(flatten(state.index().relationshipsOf(key)));
    return edges;
  }

  private void refuse(ObjectChange c, Derivation.Refusal refusal) {
    log.warn(
        "Account '{}': not caching {} {}/{} (sequence {}): {}",
        account,
        kindKey(c.getKind()),
        c.getNamespace(),
        c.getName(),
        c.getSequence(),
        refusal.detail());
    refused.add(
        RefusedChange.newBuilder()
            .setSequence(c.getSequence())
            .setKind(c.getKind())
            .setNamespace(c.getNamespace())
            .setName(c.getName())
            .setReason(refusal.detail())
            .build());
    tx.refusals().add(refusal.reason());
  }

  // ------------------------------------------------------------------ listings

  void marker(ResyncMarker marker) {
    Kind kind = marker.getKind();
    String type = CacheTables.typeOf(kind);
    if (!tx.kinds().caches(type)) {
      return;
    }
    String kindKey = kindKey(kind);
    if (marker.getPhase() == ResyncPhase.RESYNC_PHASE_BEGIN) {
      listings.put(kindKey, new AccountMemory.Listing(marker.getResyncId(), new HashSet<>()));
      return;
    }
    if (marker.getPhase() != ResyncPhase.RESYNC_PHASE_END) {
      return;
    }
    AccountMemory.Listing listing = listings.get(kindKey);
    if (listing == null || !listing.resyncId().equals(marker.getResyncId())) {
      // sweeping could remove objects that were listed where this process did not see them
      log.info(
          "Account '{}': the end of listing '{}' of {} came without its beginning (it reached"
              + " another replica or an earlier process): asking for a new listing",
          account,
          marker.getResyncId(),
          kindKey);
      relistRequired.putIfAbsent(kindKey, kind);
      awaitingListing.add(kindKey);
      resumePoints.put(kindKey, new ResumeChange(kind, null));
      return;
    }
    listings.remove(kindKey);
    awaitingListing.remove(kindKey);
    sweep(kind, type, kindKey, listing.listed());
  }

  /**
   * Removes what the account holds of the kind and {@code listed} does not name: bodies,
   * relationship rows (read together first) and spinagent_objects rows, tombstones included.
   */
  private void sweep(Kind kind, String type, String kindKey, Set<String> listed) {
    List<ObjectVersions.Key> gone = new ArrayList<>();
    Set<String> uncached = new LinkedHashSet<>();
    for (ObjectVersions.Stored stored : tx.versions().ofKind(account, kind)) {
      String key = CacheKeys.infrastructure(type, account, stored.namespace(), stored.name());
      if (!listed.contains(key)) {
        gone.add(
            new ObjectVersions.Key(
                account, kind.getGroup(), kind.getKind(), stored.namespace(), stored.name()));
        if (!stored.deleted()) {
          uncached.add(key);
        }
      }
    }
    for (String key : state.indexed(kindKey)) {
      if (!listed.contains(key)) {
        uncached.add(key);
      }
    }
    if (uncached.isEmpty() && gone.isEmpty()) {
      return;
    }
    Map<String, RelationshipRows.Wanted> rows = new LinkedHashMap<>();
    uncached.forEach(key -> rows.put(key, new RelationshipRows.Wanted(type, taken.scope())));
    tx.relationships().prefetch(rows);
    for (String key : uncached) {
      uncache(key, type, kindKey);
    }
    tx.versions().delete(gone);
  }

  /** Removes every row of the account, as if a listing of each of its kinds came back empty. */
  void purge() {
    for (Kind kind : tx.versions().kindsOf(account)) {
      sweep(kind, CacheTables.typeOf(kind), kindKey(kind), Set.of());
    }
    listings.clear();
    awaitingListing.clear();
    resumePoints.clear();
    purged = true;
  }

  // ------------------------------------------------------------------ progress

  void progress(WatchProgress progress) {
    String kindKey = kindKey(progress.getKind());
    if (awaitingListing.contains(kindKey) || !ResumePointTable.fits(account, progress)) {
      // the kind's rows wait for a listing's sweep; or its names do not fit the table
      return;
    }
    resumePoints.put(kindKey, new ResumeChange(progress.getKind(), progress));
  }

  /** The resume points to store (progress set) and delete (progress null). */
  Iterable<ResumeChange> resumeChanges() {
    return resumePoints.values();
  }

  boolean purged() {
    return purged;
  }

  int unchangedObjects() {
    return unchanged;
  }

  // ------------------------------------------------------------------ commit

  CommitOutcome outcome() {
    return new CommitOutcome(refused, List.copyOf(relistRequired.values()));
  }

  /** After the commit: the account's state becomes what this transaction left. */
  void install() {
    state.install(taken, indexRebuilt, listings, awaitingListing, logical.written());
  }

  static String kindKey(Kind kind) {
    return kind.getGroup() + "/" + kind.getKind();
  }

  /** group → keys, flattened to key → group. */
  static Map<String, String> flatten(Map<String, ? extends Set<String>> grouped) {
    Map<String, String> flat = new LinkedHashMap<>();
    grouped.forEach((group, keys) -> keys.forEach(k -> flat.put(k, group)));
    return flat;
  }
}
