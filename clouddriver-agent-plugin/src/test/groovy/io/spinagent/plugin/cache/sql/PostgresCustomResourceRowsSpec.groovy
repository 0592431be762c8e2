package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** Rows of custom resources with Spinnaker kinds, on PostgreSQL. */
class PostgresCustomResourceRowsSpec extends CustomResourceRowsSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }
}
