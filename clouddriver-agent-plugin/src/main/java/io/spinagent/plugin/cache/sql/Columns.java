package io.spinagent.plugin.cache.sql;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.unquotedName;

import io.spinagent.plugin.cache.format.CacheTypes;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.util.mysql.MySQLDSL;

/**
 * The columns the writer reads and writes, by the unquoted names cats-sql and SpinAgent's changelog
 * give them (PostgreSQL folds them to lower case, as it does Clouddriver's).
 */
final class Columns {

  // cats_v1_<type>
  static final Field<String> ID = string("id");
  static final Field<String> AGENT = string("agent");
  static final Field<String> APPLICATION = string("application");
  static final Field<String> BODY_HASH = string("body_hash");
  static final Field<String> BODY = field(unquotedName("body"), SQLDataType.CLOB);
  static final Field<Long> LAST_UPDATED = number("last_updated");

  // cats_v1_<type>_rel
  static final Field<String> UUID = string("uuid");
  static final Field<String> REL_ID = string("rel_id");
  static final Field<String> REL_AGENT = string("rel_agent");
  static final Field<String> REL_TYPE = string("rel_type");

  // spinagent_objects and spinagent_resume_points
  static final Field<String> ACCOUNT = string("account");
  static final Field<String> API_GROUP = string("api_group");
  static final Field<String> KIND = string("kind");
  static final Field<String> NAMESPACE = string("namespace");
  static final Field<String> NAME = string("name");
  static final Field<String> RESOURCE_VERSION = string("resource_version");
  static final Field<Boolean> DELETED = field(unquotedName("deleted"), SQLDataType.BOOLEAN);
  static final Field<Integer> CACHE_FORMAT =
      field(unquotedName("cache_format"), SQLDataType.INTEGER);

  // spinagent_resume_points
  static final Field<String> API_VERSION = string("api_version");
  static final Field<String> PLURAL = string("plural");
  static final Field<Boolean> NAMESPACED = field(unquotedName("namespaced"), SQLDataType.BOOLEAN);
  static final Field<Long> PROGRESS_SEQUENCE = number("progress_sequence");
  static final Field<Long> COMMITTED_AT = number("committed_at");

  private Columns() {}

  static Table<Record> table(String name) {
    return DSL.table(unquotedName(name));
  }

  /** The value a multi-row upsert proposed for {@code column}, in the dialect's spelling. */
  static <T> Field<T> proposed(Field<T> column, CacheTypes.Dialect dialect) {
    return dialect == CacheTypes.Dialect.POSTGRES
        ? field(unquotedName("excluded", column.getName()), column.getDataType())
        : MySQLDSL.values(column);
  }

  private static Field<String> string(String name) {
    return field(unquotedName(name), SQLDataType.VARCHAR);
  }

  private static Field<Long> number(String name) {
    return field(unquotedName(name), SQLDataType.BIGINT);
  }
}
