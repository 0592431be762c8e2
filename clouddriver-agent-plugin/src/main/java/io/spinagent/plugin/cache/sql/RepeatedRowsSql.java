package io.spinagent.plugin.cache.sql;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.jooq.DSLContext;

/**
 * The SQL of a multi-row statement for any number of rows, made from jOOQ's rendering of it with
 * one row and with two: the text the second row adds, repeated. Batches bring a different number of
 * rows nearly every time, and rendering the statement anew costs about as much as jOOQ's binding of
 * its values; this costs a string copy.
 */
final class RepeatedRowsSql {

  private final String head;
  private final String row;
  private final String tail;

  private RepeatedRowsSql(String head, String row, String tail) {
    this.head = head;
    this.row = row;
    this.tail = tail;
  }

  /**
   * @param render the statement's SQL with the given number of rows
   * @throws IllegalStateException when {@code render} does not add one and the same text per row
   *     (checked against its rendering of three rows)
   */
  static RepeatedRowsSql of(IntFunction<String> render) {
    String one = render.apply(1);
    String two = render.apply(2);
    int added = two.length() - one.length();
    int at = added <= 0 ? -1 : insertionPoint(one, two, added);
    if (at >= 0) {
      RepeatedRowsSql sql =
          new RepeatedRowsSql(
              one.substring(0, at), two.substring(at, at + added), one.substring(at));
      if (sql.sql(3).equals(render.apply(3))) {
        return sql;
      }
    }
    throw new IllegalStateException(
        "each row of this statement is not rendered as the same text: " + two);
  }

  /** Where {@code two} is {@code one} with {@code added} characters inserted, or -1. */
  private static int insertionPoint(String one, String two, int added) {
    int common = 0;
    while (common < one.length() && one.charAt(common) == two.charAt(common)) {
      common++;
    }
    // the inserted text may begin like what follows it, so the insertion may lie before the common
    // prefix's end
    for (int at = common; at >= 0; at--) {
      if (one.regionMatches(at, two, at + added, one.length() - at)) {
        return at;
      }
    }
    return -1;
  }

  /** Binds a statement's values, in the order its SQL places them. */
  @FunctionalInterface
  interface Values {
    void bind(PreparedStatement statement) throws SQLException;
  }

  /**
   * Runs {@code sql} (a multi-row statement of this class) on the transaction's connection, its
   * values bound straight to JDBC by {@code values}: jOOQ's objects for each bound value cost about
   * as much as the database's work on a row.
   */
  static void execute(DSLContext ctx, String sql, Values values) {
    ctx.connection(
        connection -> {
          try (PreparedStatement statement = connection.prepareStatement(sql)) {
            values.bind(statement);
            statement.executeUpdate();
          }
        });
  }

  /** The statement of each of many tables (one per cache type), made on first use of the table. */
  static final class ByTable {

    /** A table's statement with the given number of rows. */
    @FunctionalInterface
    interface Render {
      String sql(String table, int rows);
    }

    private final Render render;
    private final Map<String, RepeatedRowsSql> byTable = new ConcurrentHashMap<>();

    ByTable(Render render) {
      this.render = render;
    }

    String sql(String table, int rows) {
      return byTable.computeIfAbsent(table, t -> of(n -> render.sql(t, n))).sql(rows);
    }
  }

  String sql(int rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("a statement of " + rows + " rows");
    }
    StringBuilder sql =
        new StringBuilder(head.length() + row.length() * (rows - 1) + tail.length());
    sql.append(head);
    for (int i = 1; i < rows; i++) {
      sql.append(row);
    }
    return sql.append(tail).toString();
  }
}
