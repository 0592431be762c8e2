package io.spinagent.sandbox

import io.spinagent.testkit.db.EmbeddedMariaDb
import spock.lang.AutoCleanup
import spock.lang.Shared

/**
 * The whole data path of {@link SandboxPathSpec} with Clouddriver's SQL database on MariaDB, which
 * Clouddriver addresses with jOOQ's MySQL dialect: the same rows, the same reads.
 */
class SandboxPathOnMariaDbSpec extends SandboxPathSpec {

  @Shared @AutoCleanup EmbeddedMariaDb mariaDb

  @Override
  protected List<String> databaseArgs() {
    mariaDb = EmbeddedMariaDb.launch()
    ['--jdbc-url', mariaDb.jdbcUrl(), '--db-user', mariaDb.user(), '--db-password', mariaDb.password()]
  }
}
