package io.spinagent.plugin.tunnel.history

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb

/** The operation history on MariaDB (jOOQ MYSQL dialect, Clouddriver's default). */
class MariaDbOperationHistorySpec extends SqlOperationHistorySpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedMariaDb.launch()
  }

  @Override
  List<String> lockTable() {
    ['LOCK TABLES spinagent_operations WRITE']
  }
}
