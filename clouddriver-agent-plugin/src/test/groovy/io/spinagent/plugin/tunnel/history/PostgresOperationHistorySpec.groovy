package io.spinagent.plugin.tunnel.history

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** The operation history on PostgreSQL. */
class PostgresOperationHistorySpec extends SqlOperationHistorySpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }

  @Override
  List<String> lockTable() {
    ['LOCK TABLE spinagent_operations IN ACCESS EXCLUSIVE MODE']
  }
}
