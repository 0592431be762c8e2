package io.spinagent.plugin.cache.sql;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Splits rows for multi-row statements: at most {@link #MAX_ROWS} rows and about {@link #MAX_CHARS}
 * characters of body each, well inside MySQL's default max_allowed_packet. JDBC drivers build each
 * statement's packet in one buffer: past 1 MiB the MariaDB driver's grows to 16 MiB, a short-lived
 * giant allocation per statement (a garbage collection on the batch's path), so several half-MiB
 * statements are cheaper than one large one.
 */
final class Chunks {

  static final int MAX_ROWS = 500;
  static final int MAX_CHARS = 512 << 10;

  private Chunks() {}

  /** Rows that carry no body: {@link #MAX_ROWS} a chunk. */
  static <T> List<List<T>> of(Collection<T> rows) {
    return of(rows, row -> 0);
  }

  static <T> List<List<T>> of(Collection<T> rows, ToIntFunction<T> chars) {
    List<List<T>> chunks = new ArrayList<>();
    List<T> chunk = new ArrayList<>();
    long size = 0;
    for (T row : rows) {
      int length = chars.applyAsInt(row);
      if (!chunk.isEmpty() && (chunk.size() >= MAX_ROWS || size + length > MAX_CHARS)) {
        chunks.add(chunk);
        chunk = new ArrayList<>();
        size = 0;
      }
      chunk.add(row);
      size += length;
    }
    if (!chunk.isEmpty()) {
      chunks.add(chunk);
    }
    return chunks;
  }
}
