package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb

/** Rows of custom resources with Spinnaker kinds, on MariaDB. */
class MariaDbCustomResourceRowsSpec extends CustomResourceRowsSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedMariaDb.launch()
  }
}
