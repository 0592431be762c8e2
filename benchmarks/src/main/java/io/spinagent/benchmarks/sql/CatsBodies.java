package io.spinagent.benchmarks.sql;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import io.spinagent.plugin.cache.format.CacheTypes;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.SQLDataType;
import org.jooq.util.mysql.MySQLDSL;

/**
 * The body columns of a {@code cats_v1_<type>} table, and a multi-row upsert of bodies into one.
 */
final class CatsBodies {

  static final Field<String> ID = field(unquotedName("id"), SQLDataType.VARCHAR);
  static final Field<String> AGENT = field(unquotedName("agent"), SQLDataType.VARCHAR);
  static final Field<String> APPLICATION = field(unquotedName("application"), SQLDataType.VARCHAR);
  static final Field<String> BODY_HASH = field(unquotedName("body_hash"), SQLDataType.VARCHAR);
  static final Field<String> BODY = field(unquotedName("body"), SQLDataType.CLOB);
  static final Field<Long> LAST_UPDATED = field(unquotedName("last_updated"), SQLDataType.BIGINT);

  /** One body to store: its cache key, body hash and body JSON. */
  record Body(String id, String hash, String body) {}

  private CatsBodies() {}

  /**
   * Inserts {@code bodies} into {@code table} under {@code agent}, updating the rows that exist, in
   * one statement.
   */
  static void upsert(
      DSLContext ctx,
      CacheTypes.Dialect dialect,
      String table,
      String agent,
      List<Body> bodies,
      long now) {
    var insert =
        ctx.insertInto(
            table(unquotedName(table)), ID, AGENT, APPLICATION, BODY_HASH, BODY, LAST_UPDATED);
    for (Body body : bodies) {
      insert = insert.values(body.id(), agent, null, body.hash(), body.body(), now);
    }
    if (dialect == CacheTypes.Dialect.POSTGRES) {
      insert
          .onConflict(ID, AGENT)
          .doUpdate()
          .set(BODY_HASH, excluded(BODY_HASH))
          .set(BODY, excluded(BODY))
          .set(LAST_UPDATED, excluded(LAST_UPDATED))
          .execute();
    } else {
      insert
          .onDuplicateKeyUpdate()
          .set(BODY_HASH, MySQLDSL.values(BODY_HASH))
          .set(BODY, MySQLDSL.values(BODY))
          .set(LAST_UPDATED, MySQLDSL.values(LAST_UPDATED))
          .execute();
    }
  }

  /** PostgreSQL's {@code excluded.<column>}: the value the conflicting insert proposed. */
  static <T> Field<T> excluded(Field<T> column) {
    return field(unquotedName("excluded", column.getName()), column.getDataType());
  }
}
