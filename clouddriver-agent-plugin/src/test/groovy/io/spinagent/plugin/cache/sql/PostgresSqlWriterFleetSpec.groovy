package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** The SQL writer for a fleet on PostgreSQL. */
class PostgresSqlWriterFleetSpec extends SqlWriterFleetSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }
}
