package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** The SQL cache writer on PostgreSQL. */
class PostgresSqlCacheWriterSpec extends SqlCacheWriterSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }
}
