package io.spinagent.plugin.store

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb

/** The replicas' shared tables on MariaDB. */
class MariaDbSharedReplicaTablesSpec extends SharedReplicaTablesSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedMariaDb.launch()
  }
}
