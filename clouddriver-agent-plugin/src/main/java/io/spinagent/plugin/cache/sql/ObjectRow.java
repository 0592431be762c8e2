package io.spinagent.plugin.cache.sql;

/**
 * An object's row in {@code spinagent_objects}: the newest resourceVersion the cache has seen of
 * it, whether that was its delete (a tombstone), and the listing that last confirmed it.
 */
record ObjectRow(String resourceVersion, boolean deleted, long generation) {}
