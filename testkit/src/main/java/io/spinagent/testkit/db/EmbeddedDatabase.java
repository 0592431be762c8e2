package io.spinagent.testkit.db;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * An embedded database server for specs: started once, stoppable and restartable on the same data
 * (to simulate a database outage), with Clouddriver's cats template tables created by {@link
 * CatsTemplateTables}.
 */
public interface EmbeddedDatabase extends AutoCloseable {

  /** jOOQ SQLDialect name: {@code MYSQL} or {@code POSTGRES}. */
  String dialect();

  String jdbcUrl();

  String user();

  String password();

  /** Stops the server, keeping its data. */
  void stop();

  /** Starts the server again on the same port and data. */
  void start();

  /** The directory holding the server's files (for MariaDB, its binaries too). */
  Path directory();

  /** Stops the server and deletes {@link #directory()}. */
  @Override
  void close();

  /** A non-pooled DataSource: every getConnection opens a new connection (fails while stopped). */
  default DataSource dataSource() {
    EmbeddedDatabase db = this;
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
      }

      @Override
      public Connection getConnection(String username, String password) throws SQLException {
        return DriverManager.getConnection(db.jdbcUrl(), username, password);
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) {
        return false;
      }
    };
  }
}
