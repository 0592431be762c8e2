package io.spinagent.sandbox.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.spinagent.sandbox.host.ClouddriverProcess;
import io.spinagent.testkit.db.EmbeddedPostgreSql;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Clouddriver's database for the sandbox: an embedded PostgreSQL, or an external one named by a
 * JDBC URL. Clouddriver (the stand-in) creates its tables there when it starts; the sandbox's own
 * pool and jOOQ context read them for the live view.
 */
public final class SandboxDatabase implements AutoCloseable {

  private final Optional<EmbeddedPostgreSql> embedded;
  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final SQLDialect dialect;
  private final HikariDataSource dataSource;
  private final DSLContext jooq;

  private SandboxDatabase(
      Optional<EmbeddedPostgreSql> embedded,
      String jdbcUrl,
      String user,
      String password,
      SQLDialect dialect,
      HikariDataSource dataSource) {
    this.embedded = embedded;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.dialect = dialect;
    this.dataSource = dataSource;
    this.jooq = DSL.using(dataSource, dialect);
  }

  /**
   * Starts an embedded PostgreSQL in a temporary directory; {@link #close()} stops it and deletes
   * the directory.
   */
  public static SandboxDatabase embedded() {
    EmbeddedPostgreSql postgres = EmbeddedPostgreSql.launch();
    try {
      return open(Optional.of(postgres), postgres.jdbcUrl(), postgres.user(), postgres.password());
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
  }

  /** Connects to an existing database, which must already exist and accept the user. */
  public static SandboxDatabase external(String jdbcUrl, String user, String password) {
    return open(Optional.empty(), jdbcUrl, user, password);
  }

  private static SandboxDatabase open(
      Optional<EmbeddedPostgreSql> embedded, String url, String user, String password) {
    SQLDialect dialect = dialectOf(url);
    HikariConfig config = new HikariConfig();
    config.setPoolName("sandbox-view");
    config.setJdbcUrl(driverUrl(url));
    config.setUsername(user.isEmpty() ? null : user);
    config.setPassword(password.isEmpty() ? null : password);
    config.setMaximumPoolSize(2);
    // Fail at start with the driver's own message instead of a pool timeout later.
    config.setInitializationFailTimeout(1);
    HikariDataSource dataSource;
    try {
      dataSource = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Cannot connect to the database at " + url + ": " + rootMessage(e), e);
    }
    return new SandboxDatabase(embedded, url, user, password, dialect, dataSource);
  }

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

  public boolean isEmbedded() {
    return embedded.isPresent();
  }

  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** How Clouddriver connects to this database. */
  public ClouddriverProcess.Database connection() {
    return new ClouddriverProcess.Database(jdbcUrl, user, password);
  }

  public SQLDialect dialect() {
    return dialect;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public DSLContext jooq() {
    return jooq;
  }

  @Override
  public void close() {
    dataSource.close();
    embedded.ifPresent(EmbeddedPostgreSql::close);
  }
}
