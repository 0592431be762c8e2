package io.spinagent.testkit.clouddriver;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * Clouddriver's account storage tables, {@code accounts} and {@code accounts_history}, shaped as its
 * changelogs {@code 20210927-accounts.yml} and {@code 20240111-accounts-indexes.yml} create them
 * (JSON bodies: {@code json} on MySQL, {@code jsonb} on PostgreSQL).
 */
public final class ClouddriverAccountsTable {

  private ClouddriverAccountsTable() {}

  public static void create(DataSource dataSource, boolean postgres) {
    String json = postgres ? "jsonb" : "json";
    String bool = postgres ? "boolean" : "tinyint(1)";
    List<String> statements =
        List.of(
            "create table if not exists accounts (id varchar(255) primary key, type varchar(50) not null, body "
                + json + " not null, created_at bigint not null, last_modified_at bigint not null,"
                + " last_modified_by varchar(255) not null)",
            "create index " + (postgres ? "if not exists " : "") + "accounts_type_index on accounts (type)",
            "create table if not exists accounts_history (id varchar(255) not null, type varchar(50), body " + json
                + ", last_modified_at bigint not null, version int not null, is_deleted " + bool
                + " not null default " + (postgres ? "false" : "0") + ", primary key (id, version))");
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create Clouddriver's accounts tables: " + e.getMessage(), e);
    }
  }
}
