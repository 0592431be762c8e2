package io.spinagent.testkit.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * Clouddriver's account storage tables ({@code accounts}, {@code accounts_history}) as its
 * Liquibase changelog leaves them at v5.90.0: written for this testkit from
 * clouddriver-sql/src/main/resources/db/changelog/20210927-accounts.yml ({@code json} columns,
 * {@code jsonb} on PostgreSQL; the id/type and timestamp indexes) plus the index on {@code type} of
 * 20240111-accounts-indexes.yml. Clouddriver's {@code AccountDefinitionRepository} reads and writes
 * these when {@code account.storage.enabled} is set.
 */
public final class AccountsTable {

  private AccountsTable() {}

  static List<String> mysql() {
    return List.of(
        "CREATE TABLE IF NOT EXISTS accounts ( id varchar(255) NOT NULL PRIMARY KEY, type"
            + " varchar(50) NOT NULL, body json NOT NULL, created_at bigint NOT NULL,"
            + " last_modified_at bigint NOT NULL, last_modified_by varchar(255) NOT NULL, INDEX"
            + " accounts_type_index (id, type), INDEX accounts_timestamp_index (id, type,"
            + " created_at, last_modified_at), INDEX accounts_type_only_index (type)) ENGINE InnoDB"
            + " DEFAULT CHARSET=utf8mb4 COLLATE utf8mb4_unicode_ci",
        "CREATE TABLE IF NOT EXISTS accounts_history ( id varchar(255) NOT NULL, type varchar(50)"
            + " NULL, body json NULL, last_modified_at bigint NOT NULL, version int NOT NULL,"
            + " is_deleted boolean NOT NULL DEFAULT false, PRIMARY KEY (id, version)) ENGINE InnoDB"
            + " DEFAULT CHARSET=utf8mb4 COLLATE utf8mb4_unicode_ci");
  }

  static List<String> postgres() {
    return List.of(
        "CREATE TABLE IF NOT EXISTS accounts ( id varchar(255) NOT NULL PRIMARY KEY, type"
            + " varchar(50) NOT NULL, body jsonb NOT NULL, created_at bigint NOT NULL,"
            + " last_modified_at bigint NOT NULL, last_modified_by varchar(255) NOT NULL)",
        "CREATE INDEX IF NOT EXISTS accounts_type_index ON accounts (id, type)",
        "CREATE INDEX IF NOT EXISTS accounts_timestamp_index ON accounts (id, type, created_at,"
            + " last_modified_at)",
        "CREATE INDEX IF NOT EXISTS accounts_type_only_index ON accounts (type)",
        "CREATE TABLE IF NOT EXISTS accounts_history ( id varchar(255) NOT NULL, type varchar(50)"
            + " NULL, body jsonb NULL, last_modified_at bigint NOT NULL, version int NOT NULL,"
            + " is_deleted boolean NOT NULL DEFAULT false, PRIMARY KEY (id, version))");
  }

  /** Creates both tables in the database of {@code db}. */
  public static void create(EmbeddedDatabase db) {
    create(db.dataSource(), "POSTGRES".equals(db.dialect()));
  }

  public static void create(DataSource dataSource, boolean postgres) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String sql : postgres ? postgres() : mysql()) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create Clouddriver's accounts tables", e);
    }
  }
}
