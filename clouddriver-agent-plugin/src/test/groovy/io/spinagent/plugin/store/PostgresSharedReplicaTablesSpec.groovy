package io.spinagent.plugin.store

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** The replicas' shared tables on PostgreSQL. */
class PostgresSharedReplicaTablesSpec extends SharedReplicaTablesSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }
}
