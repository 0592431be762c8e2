package io.spinagent.benchmarks.fleet;

import io.spinagent.testkit.db.EmbeddedDatabase;
import io.spinagent.testkit.db.EmbeddedMariaDb;
import io.spinagent.testkit.db.EmbeddedPostgreSql;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Clouddriver's database for the plugin's replicas: an embedded PostgreSQL or MariaDB server (each
 * a native process of its own, which outlives the replicas' restarts), holding one fresh database
 * per scenario. The benchmark reads it directly: how many Clouddriver account definitions exist,
 * and which cache rows were written since a moment.
 */
final class FleetDatabase implements AutoCloseable {

  private final String kind;
  private final EmbeddedDatabase server;

  private FleetDatabase(String kind, EmbeddedDatabase server) {
    this.kind = kind;
    this.server = server;
  }

  /** Starts {@code kind}: {@code postgres} or {@code mariadb}. */
  static FleetDatabase start(String kind) {
    return switch (kind) {
      case "postgres" -> new FleetDatabase(kind, EmbeddedPostgreSql.launch());
      case "mariadb" -> new FleetDatabase(kind, EmbeddedMariaDb.launch());
      default ->
          throw new IllegalArgumentException(
              "unknown database '" + kind + "': postgres or mariadb");
    };
  }

  String kind() {
    return kind;
  }

  String user() {
    return server.user();
  }

  String password() {
    return server.password();
  }

  /** Creates an empty database {@code name} and returns its JDBC URL. */
  Scenario freshScenario(String name) {
    try (Connection c = connect(server.jdbcUrl());
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    String url =
        kind.equals("postgres")
            ? server.jdbcUrl().replace("/postgres?", "/" + name + "?")
            : server.jdbcUrl().replace("/" + EmbeddedMariaDb.DATABASE, "/" + name);
    return new Scenario(url);
  }

  /**
   * Stops the server (its connections end) and starts it again on the same port and data: a
   * database restart as the fault soak injects it.
   */
  void restart(java.time.Duration down) {
    server.stop();
    try {
      Thread.sleep(down.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      server.start();
    }
  }

  @Override
  public void close() {
    server.close();
  }

  private Connection connect(String url) throws SQLException {
    return DriverManager.getConnection(url, server.user(), server.password());
  }

  /** One scenario's database. */
  final class Scenario {
    private final String jdbcUrl;

    private Scenario(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
    }

    String jdbcUrl() {
      return jdbcUrl;
    }

    String user() {
      return server.user();
    }

    String password() {
      return server.password();
    }

    /** A new connection to this scenario's database; the caller closes it. */
    Connection open() throws SQLException {
      return connect(jdbcUrl);
    }

    /** The body of the account's definition in Clouddriver's account storage, if written. */
    Optional<String> accountDefinition(String account) {
      try (Connection c = open();
          PreparedStatement s = c.prepareStatement("SELECT body FROM accounts WHERE id = ?")) {
        s.setString(1, account);
        try (ResultSet rows = s.executeQuery()) {
          return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
        }
      } catch (SQLException e) {
        // Before the first replica has started, the table does not exist yet.
        return Optional.empty();
      }
    }

    /** Rows of Clouddriver's account storage ({@code accounts}): the definitions written. */
    int accountDefinitions() {
      try (Connection c = connect(jdbcUrl);
          Statement s = c.createStatement();
          ResultSet rows = s.executeQuery("SELECT count(*) FROM accounts")) {
        rows.next();
        return rows.getInt(1);
      } catch (SQLException e) {
        // Before the first replica has started, the table does not exist yet.
        return 0;
      }
    }

    /**
     * The cache's rows, and those whose {@code last_updated} is at or after {@code sinceMillis}
     * (inserted or rewritten since then), over Clouddriver's cache tables ({@code cats_v1_*}:
     * resources and relationships, templates left out) and the plugin's {@code spinagent_objects}.
     */
    RowCount cacheRows(long sinceMillis) {
      try (Connection c = connect(jdbcUrl)) {
        long total = 0;
        long written = 0;
        for (String table : cacheTables(c)) {
          try (PreparedStatement s =
              c.prepareStatement(
                  "SELECT count(*), sum(CASE WHEN last_updated >= ? THEN 1 ELSE 0 END) FROM "
                      + table)) {
            s.setLong(1, sinceMillis);
            try (ResultSet rows = s.executeQuery()) {
              rows.next();
              total += rows.getLong(1);
              written += rows.getLong(2);
            }
          }
        }
        return new RowCount(total, written);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot count the cache rows", e);
      }
    }

    /**
     * This scenario's cache tables. Read from information_schema for the connection's own database
     * (MariaDB) or schema (PostgreSQL): JDBC metadata on MariaDB also lists the tables of the
     * server's other databases, the earlier scenarios'.
     */
    private List<String> cacheTables(Connection c) throws SQLException {
      String current = kind.equals("postgres") ? "current_schema()" : "DATABASE()";
      List<String> tables = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rows =
              s.executeQuery(
                  "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                      + current)) {
        while (rows.next()) {
          // Named as created: MariaDB's table names are case-sensitive on Linux
          // (cats_v1_clusterRoleBinding).
          String table = rows.getString(1);
          String name = table.toLowerCase(java.util.Locale.ROOT);
          if ((name.startsWith("cats_v1_") && !name.endsWith("_template"))
              || name.equals("spinagent_objects")) {
            tables.add(table);
          }
        }
      }
      return tables;
    }
  }

  /** Cache rows: all of them, and those written since a moment. */
  record RowCount(long total, long written) {
    double writtenShare() {
      return total == 0 ? 0 : (double) written / total;
    }
  }
}
