package io.spinagent.plugin.cache.sql;

import java.util.Locale;

/**
 * Rows one transaction wrote and deleted, by kind of table: counted as its statements run, and
 * published ({@link WriterMetrics}) only once it has committed.
 */
final class RowTally {

  enum Table {
    /** {@code cats_v1_<type>}: bodies */
    BODY,
    /** {@code cats_v1_<type>_rel} */
    RELATIONSHIP,
    /** {@code spinagent_objects} */
    OBJECT,
    /** {@code spinagent_resume_points} */
    RESUME_POINT;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  enum Operation {
    WRITE,
    DELETE;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final long[] rows = new long[Table.values().length * Operation.values().length];

  void add(Table table, Operation operation, long count) {
    rows[index(table, operation)] += count;
  }

  long get(Table table, Operation operation) {
    return rows[index(table, operation)];
  }

  private static int index(Table table, Operation operation) {
    return table.ordinal() * Operation.values().length + operation.ordinal();
  }
}
