package io.spinagent.testkit.kubernetes;

/**
 * One committed change, as kept in the watch history.
 *
 * @param object the new state (for DELETED: the last state, carrying the deletion's
 *     resourceVersion)
 * @param previous the state before the change, null for ADDED; needed to roll history back
 *     (consistent pages) and to turn label changes into ADDED/DELETED for selector-filtered watches
 */
record WatchEvent(long resourceVersion, Type type, StoredObject object, StoredObject previous) {

  enum Type {
    ADDED,
    MODIFIED,
    DELETED
  }

  ObjectKey key() {
    return object.key();
  }
}
