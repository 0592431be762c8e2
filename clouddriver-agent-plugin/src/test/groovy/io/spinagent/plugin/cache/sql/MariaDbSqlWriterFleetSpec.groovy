package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb

/** The SQL writer for a fleet on MariaDB. */
class MariaDbSqlWriterFleetSpec extends SqlWriterFleetSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedMariaDb.launch()
  }
}
