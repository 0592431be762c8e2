package io.spinagent.standin;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.spinagent.testkit.db.AccountsTable;
import io.spinagent.testkit.db.CatsTemplateTables;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Clouddriver's SQL database as kork-sql hands it to Clouddriver (and so to the plugin): a pool and
 * a jOOQ context of this line's jOOQ, on an existing database named by a JDBC URL. It creates what
 * Clouddriver's own Liquibase changelog would have created before the plugin starts: the cats
 * template tables and the account storage tables.
 */
final class StandInDatabase implements AutoCloseable {

  private final SQLDialect dialect;
  private final HikariDataSource dataSource;
  private final DSLContext jooq;

  private StandInDatabase(SQLDialect dialect, HikariDataSource dataSource) {
    this.dialect = dialect;
    this.dataSource = dataSource;
    this.jooq = DSL.using(dataSource, dialect);
  }

  /**
   * Connects to the database at {@code url}, which must exist and accept the user, speaking {@code
   * dialect} (kork-sql's {@code sql.connectionPools.default.dialect}; null: as kork-sql does by
   * default for the URL).
   */
  static StandInDatabase open(String url, String user, String password, String dialectName) {
    SQLDialect dialect = dialectName == null ? dialectOf(url) : SQLDialect.valueOf(dialectName);
    HikariConfig config = new HikariConfig();
    config.setPoolName("clouddriver");
    config.setJdbcUrl(driverUrl(url));
    config.setUsername(user == null || user.isEmpty() ? null : user);
    config.setPassword(password == null || password.isEmpty() ? null : password);
    config.setMaximumPoolSize(10);
    // Fail at start with the driver's own message instead of a pool timeout later.
    config.setInitializationFailTimeout(1);
    HikariDataSource dataSource;
    try {
      dataSource = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Cannot connect to the database at " + url + ": " + rootMessage(e), e);
    }
    try {
      boolean postgres = dialect == SQLDialect.POSTGRES;
      CatsTemplateTables.create(dataSource, postgres);
      AccountsTable.create(dataSource, postgres);
      return new StandInDatabase(dialect, dataSource);
    } catch (RuntimeException e) {
      dataSource.close();
      throw new IllegalStateException(
          "Cannot create Clouddriver's tables in " + url + ": " + rootMessage(e), e);
    }
  }

  /**
   * kork-sql's dialect when none is configured: MySQL, which serves MariaDB too up to jOOQ 3.18
   * (jOOQ 3.19, from Spinnaker 2026.2, writes MySQL 8's upserts, which MariaDB cannot read: there
   * MariaDB needs {@code MARIADB} configured); PostgreSQL, which Clouddriver's PostgreSQL users
   * configure.
   */
  static SQLDialect dialectOf(String url) {
    if (url.startsWith("jdbc:postgresql:")) {
      return SQLDialect.POSTGRES;
    }
    if (url.startsWith("jdbc:mysql:") || url.startsWith("jdbc:mariadb:")) {
      return SQLDialect.MYSQL;
    }
    throw new IllegalArgumentException(
        "Unsupported database URL "
            + url
            + ": Clouddriver's SQL cache runs on MySQL, MariaDB or PostgreSQL"
            + " (jdbc:mysql://, jdbc:mariadb://, jdbc:postgresql://)");
  }

  /** The MariaDB driver serves MySQL URLs too, when told that it may. */
  static String driverUrl(String url) {
    if (!url.startsWith("jdbc:mysql:") || url.contains("permitMysqlScheme")) {
      return url;
    }
    return url + (url.contains("?") ? "&" : "?") + "permitMysqlScheme";
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getMessage();
  }

  boolean isPostgres() {
    return dialect == SQLDialect.POSTGRES;
  }

  DataSource dataSource() {
    return dataSource;
  }

  DSLContext jooq() {
    return jooq;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
