package io.spinagent.plugin.store;

import io.spinagent.common.Backoff;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.jooq.DSLContext;

/**
 * Creates and upgrades SpinAgent's own tables with Liquibase (which Clouddriver ships), recording
 * its changesets in {@code spinagent_databasechangelog} / {@code spinagent_databasechangeloglock}
 * so that they never mix with Clouddriver's changelog.
 */
public final class SpinAgentSchema {

  public static final String CHANGELOG = "db/spinagent/changelog.yml";
  public static final String CHANGELOG_TABLE = "spinagent_databasechangelog";
  public static final String LOCK_TABLE = "spinagent_databasechangeloglock";

  private SpinAgentSchema() {}

  /**
   * Brings the tables up to date. Retried a few times: replicas starting together may race on the
   * same changeset, and the loser then finds it applied.
   */
  public static void migrate(DataSource dataSource) {
    migrate(
        () -> {
          try (Connection connection = dataSource.getConnection()) {
            migrateOnce(connection);
          } catch (SQLException e) {
            throw new IllegalStateException("cannot create SpinAgent's tables", e);
          }
        });
  }

  /** The same through a connection of jOOQ's (Clouddriver's kork-sql DSLContext). */
  public static void migrate(DSLContext jooq) {
    migrate(() -> jooq.connection(SpinAgentSchema::migrateOnce));
  }

  /**
   * Another replica may hold Liquibase's lock while it migrates the same tables: wait 1 s, then 2 s
   * before giving up.
   */
  private static final Backoff MIGRATION_RETRIES =
      Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(2));

  private static void migrate(Runnable once) {
    for (int attempt = 1; ; attempt++) {
      try {
        once.run();
        return;
      } catch (IllegalStateException e) {
        if (attempt >= 3) {
          throw e;
        }
        try {
          Thread.sleep(MIGRATION_RETRIES.delay(attempt).toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static void migrateOnce(Connection connection) {
    try {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      database.setDatabaseChangeLogTableName(CHANGELOG_TABLE);
      database.setDatabaseChangeLogLockTableName(LOCK_TABLE);
      Liquibase liquibase =
          new Liquibase(
              CHANGELOG,
              new ClassLoaderResourceAccessor(SpinAgentSchema.class.getClassLoader()),
              database);
      // Up to date (every start but the first of a release): nothing to do, and nothing to lock.
      // Liquibase would find that too, but then release a lock it never took, which the session
      // lock Clouddriver ships (liquibase-sessionlock 1.5) reports as an error on every start.
      if (liquibase.listUnrunChangeSets(new Contexts(), new LabelExpression(), false).isEmpty()) {
        return;
      }
      liquibase.update(new Contexts(), new LabelExpression());
    } catch (LiquibaseException e) {
      throw new IllegalStateException("cannot create SpinAgent's tables", e);
    }
  }
}
