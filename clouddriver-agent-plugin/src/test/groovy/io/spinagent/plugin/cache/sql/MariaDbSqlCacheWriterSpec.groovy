package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb

/** The SQL cache writer on MariaDB (jOOQ MYSQL dialect, Clouddriver's default). */
class MariaDbSqlCacheWriterSpec extends SqlCacheWriterSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedMariaDb.launch()
  }
}
