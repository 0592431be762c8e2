package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb

/** The SQL writer's table parts on MariaDB. */
class MariaDbSqlWriterPartsSpec extends SqlWriterPartsSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedMariaDb.launch()
  }
}
