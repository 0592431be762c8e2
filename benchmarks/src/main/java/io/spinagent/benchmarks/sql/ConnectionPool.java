package io.spinagent.benchmarks.sql;

import io.spinagent.testkit.db.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;

/**
 * A fixed number of open connections, for a writer that runs several transactions at once (as
 * Clouddriver's connection pool serves its threads): jOOQ takes one for each transaction, waiting
 * while all are taken, and gives it back afterwards.
 */
final class ConnectionPool implements ConnectionProvider, AutoCloseable {

  private final List<Connection> all = new ArrayList<>();
  private final BlockingQueue<Connection> idle;

  ConnectionPool(EmbeddedDatabase db, int size) throws SQLException {
    this.idle = new ArrayBlockingQueue<>(size);
    for (int i = 0; i < size; i++) {
      Connection connection = db.dataSource().getConnection();
      all.add(connection);
      idle.add(connection);
    }
  }

  @Override
  public Connection acquire() {
    try {
      return idle.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DataAccessException("interrupted while waiting for a connection", e);
    }
  }

  @Override
  public void release(Connection connection) {
    idle.add(connection);
  }

  @Override
  public void close() throws SQLException {
    for (Connection connection : all) {
      connection.close();
    }
  }
}
