package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** The SQL writer's table parts on PostgreSQL. */
class PostgresSqlWriterPartsSpec extends SqlWriterPartsSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }
}
