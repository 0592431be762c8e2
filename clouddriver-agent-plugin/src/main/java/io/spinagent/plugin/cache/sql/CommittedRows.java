package io.spinagent.plugin.cache.sql;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.util.Map;

/**
 * What the database holds for the keys a batch committed, remembered so that the next batch of the
 * same account need not read it back: each object's {@code spinagent_objects} row (or that it has
 * none), and each key's relationship rows. Both are bounded, least recently used first out; a key
 * not remembered is simply read from the database again.
 *
 * <p>Remembered rows are only as good as the assumption that nothing else wrote them, so they
 * belong to a {@link Scope}: one account, for as long as this replica's writer is the only one
 * writing it. The writer starts a new scope, which orphans everything remembered in the old one,
 * whenever that may no longer hold: another stream claims the account, the account stops being
 * served here, or a transaction fails (its outcome is unknown).
 */
final class CommittedRows {

  /** Remembered rows of one account, valid until the writer replaces the scope. */
  static final class Scope {
    private final String account;

    Scope(String account) {
      this.account = account;
    }

    String account() {
      return account;
    }

    @Override
    public String toString() {
      return "rows committed for account " + account;
    }
  }

  /** What {@link #object} answers for an object remembered to have no row. */
  static final ObjectVersions.Version NO_ROW = new ObjectVersions.Version("", false, null);

  private record Key(Scope scope, String id) {}

  private final Cache<Key, ObjectVersions.Version> objects;
  private final Cache<Key, Map<String, String>> relationships;

  /**
   * @param capacity most objects and most keys' relationship rows remembered; 0 remembers nothing
   */
  CommittedRows(long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("remembered rows must be 0 or more, not " + capacity);
    }
    this.objects = capacity == 0 ? null : CacheBuilder.newBuilder().maximumSize(capacity).build();
    this.relationships =
        capacity == 0 ? null : CacheBuilder.newBuilder().maximumSize(capacity).build();
  }

  /**
   * The object's spinagent_objects row: {@link #NO_ROW} when it has none, null when not remembered.
   *
   * @param key the object's infrastructure key (one string: about 180 bytes less per object than
   *     its spinagent_objects key's four)
   */
  ObjectVersions.Version object(Scope scope, String key) {
    return objects == null ? null : objects.getIfPresent(new Key(scope, key));
  }

  /** The key's relationship rows (related key → its type), or null when not remembered. */
  Map<String, String> relationships(Scope scope, String key) {
    return relationships == null ? null : relationships.getIfPresent(new Key(scope, key));
  }

  /** Remembers the object's row as committed; {@code row} null: it has none. */
  void rememberObject(Scope scope, String key, ObjectVersions.Version row) {
    if (objects != null) {
      objects.put(new Key(scope, key), row == null ? NO_ROW : row);
    }
  }

  /** Remembers the key's relationship rows as committed. */
  void rememberRelationships(Scope scope, String key, Map<String, String> rows) {
    if (relationships != null) {
      relationships.put(new Key(scope, key), Map.copyOf(rows));
    }
  }
}
