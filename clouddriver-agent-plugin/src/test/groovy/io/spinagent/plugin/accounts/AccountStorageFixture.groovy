package io.spinagent.plugin.accounts

import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository
import io.spinagent.testkit.db.AccountsTable
import javax.sql.DataSource
import org.jooq.DSLContext

/**
 * Clouddriver's account storage on a MariaDB shared by a spec's features, emptied before each
 * feature so that it starts as a new Clouddriver installation would.
 */
final class AccountStorageFixture {

  private AccountStorageFixture() {}

  /**
   * Drops what an earlier feature wrote (SpinAgent's tables, Clouddriver's accounts tables and the
   * per-type cache tables; the cats templates stay), creates Clouddriver's accounts tables again and
   * returns the storage on them.
   */
  static SqlAccountDefinitionRepository emptyStorage(DataSource sql, DSLContext jooq) {
    jooq.fetch("select table_name from information_schema.tables where table_schema = database()"
        + " and (table_name like 'spinagent%' or table_name like 'accounts%'"
        + " or (table_name like 'cats_v1_%' and table_name not like '%template%'))")
        .collect { it.get(0, String) }
        .each { jooq.execute("drop table $it") }
    AccountsTable.create(sql, false)
    new SqlAccountDefinitionRepository(sql, false)
  }
}
