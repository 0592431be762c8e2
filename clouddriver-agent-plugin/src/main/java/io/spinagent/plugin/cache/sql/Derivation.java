package io.spinagent.plugin.cache.sql;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.format.ManifestCacheRecords;
import io.spinagent.plugin.cache.format.RelationshipIndex;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.ObjectChange;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;

/**
 * What each change's object yields on its own, without the account's other objects: parsed,
 * filtered, its records derived, its body serialised and hashed, and the facts the account's
 * relationship index keeps about it. This needs no other object, so helper threads ({@link
 * #HELPERS}, named {@code spinagent-sql-derive}) start on a group's changes as soon as it is taken
 * ({@link ParallelBatch}), while the committer runs the up-front queries and then joins in.
 */
final class Derivation {

  /**
   * Helper tasks that derive a group's objects alongside the committer, which joins in after its
   * up-front queries: all cores but one, one per 16 changes.
   */
  static final int HELPERS = Math.max(1, Runtime.getRuntime().availableProcessors() - 1);

  private static final int CHANGES_PER_HELPER = 16;

  /**
   * The version of what the writer derives from an object, recorded in every spinagent_objects row
   * it writes ({@link #formatOf}): an unchanged object whose rows were derived otherwise (by an
   * older version, or under other account options) is written again rather than skipped. Raise it
   * whenever the rows derived from the same object change.
   */
  static final int CACHE_FORMAT = 1;

  /** Why a change is acknowledged but not stored. */
  enum Reason {
    /** the object's JSON cannot be parsed */
    UNREADABLE_JSON,
    /** no kind, apiVersion or metadata.name: Clouddriver cannot convert it either */
    MALFORMED,
    /** a name longer than spinagent_objects' columns, or a key longer than the id column */
    TOO_LONG,
    /** the object's JSON names another object than the change */
    NAMES_ANOTHER_OBJECT,
    /** an object shape the derivation cannot handle */
    UNDERIVABLE;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why a change is not stored, in words that never quote the object (a Secret's data). */
  record Refusal(Reason reason, String detail) {}

  /**
   * @param indexEntry what the relationship index keeps about the object
   * @param skipped not cached by the account's options or the ignore annotation
   * @param refusal why the object cannot be cached, or null
   */
  record Derived(
      RelationshipIndex.Entry indexEntry,
      boolean skipped,
      ManifestCacheRecords records,
      String body,
      String bodyHash,
      Refusal refusal) {

    static Derived refused(Reason reason, String detail) {
      return new Derived(null, false, null, null, null, new Refusal(reason, detail));
    }
  }

  /** A change of a group, with its account and the account's format options. */
  record Item(String account, FormatOptions options, SinkEntry entry) {}

  private final CachedKinds kinds;
  private final ObjectMapper mapper;
  private final Executor helpers;

  Derivation(CachedKinds kinds, ObjectMapper mapper, Executor helpers) {
    this.kinds = kinds;
    this.mapper = mapper;
    this.helpers = helpers;
  }

  /** Starts deriving every item, on helpers and on whichever thread asks for a result first. */
  ParallelBatch<Item, Derived> start(List<Item> items, long now) {
    return ParallelBatch.start(
        items,
        item -> derive(item, now),
        helpers,
        Math.min(HELPERS, items.size() / CHANGES_PER_HELPER));
  }

  /**
   * The cache format of rows derived under these options ({@link #CACHE_FORMAT} and the options
   * that change what is derived).
   */
  static int formatOf(FormatOptions options) {
    return CACHE_FORMAT << 2
        | (options.onlySpinnakerManaged() ? 1 : 0)
        | (options.cacheAllApplicationRelationships() ? 2 : 0);
  }

  /** Null for what has no object to derive (deletes, markers, progress, kinds not cached). */
  Derived derive(Item item, long now) {
    if (!(item.entry() instanceof SinkEntry.Change c)
        || c.change().getType() == ChangeType.CHANGE_TYPE_DELETE
        || !kinds.caches(CacheTables.typeOf(c.change().getKind()))) {
      return null;
    }
    ObjectChange change = c.change();
    byte[] json = change.getObjectJson().toByteArray();
    JsonNode object;
    try {
      object = mapper.readTree(json);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      return Derived.refused(
          Reason.UNREADABLE_JSON,
          at == null
              ? "unreadable object JSON"
              : "unreadable object JSON at line "
                  + at.getLineNr()
                  + ", column "
                  + at.getColumnNr());
    } catch (IOException e) {
      return Derived.refused(Reason.UNREADABLE_JSON, "unreadable object JSON");
    }
    Optional<ManifestCacheRecords.Skip> skip =
        ManifestCacheRecords.skipReason(object, item.options());
    if (skip.isPresent()) {
      return skip.get() == ManifestCacheRecords.Skip.MALFORMED
          ? Derived.refused(Reason.MALFORMED, "the object has no kind, apiVersion or metadata.name")
          : new Derived(null, true, null, null, null, null);
    }
    try {
      // an object (skipReason refuses anything else), parsed for this alone; the relationship
      // index reads no member that making the manifest of it drops or adds
      ManifestCacheRecords records =
          ManifestCacheRecords.ofSent(item.account(), json, (ObjectNode) object, item.options())
              .orElseThrow();
      CacheRecord infra = records.infrastructure();
      // bodies carry the empty groups Clouddriver always writes; relationships live in _rel rows
      String body =
          new CacheRecord(
                  records.key(), records.type(), infra.attributes(), sticky(), infra.ttlSeconds())
              .toBodyJson(mapper, now);
      RelationshipIndex.Entry indexEntry = RelationshipIndex.Entry.of(item.account(), object);
      return new Derived(indexEntry, false, records, body, CacheRecord.bodyHash(body), null);
    } catch (RuntimeException e) {
      // Clouddriver would skip such an object as well; a Secret's failure is not quoted
      boolean secret = CacheTypes.SECRET.equals(CacheTables.typeOf(change.getKind()));
      return Derived.refused(
          Reason.UNDERIVABLE,
          "cannot derive its cache records: "
              + (secret || e.getMessage() == null
                  ? e.getClass().getSimpleName()
                  : e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  /** The empty relationship groups every body carries ({@link CacheTypes#STICKY_TYPES}). */
  static Map<String, Set<String>> sticky() {
    Map<String, Set<String>> rels = new TreeMap<>();
    for (String t : CacheTypes.STICKY_TYPES) {
      rels.put(t, Set.of());
    }
    return rels;
  }
}
