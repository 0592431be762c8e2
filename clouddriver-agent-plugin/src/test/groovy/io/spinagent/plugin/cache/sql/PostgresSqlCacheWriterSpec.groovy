package io.spinagent.plugin.cache.sql

import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedPostgreSql

/** The SQL cache writer on PostgreSQL. */
class PostgresSqlCacheWriterSpec extends SqlCacheWriterSpecification {

  @Override
  EmbeddedDatabase startDatabase() {
    EmbeddedPostgreSql.launch()
  }

  def "spinagent_objects leaves room on its pages, so that a new resource version is a heap-only update"() {
    expect:
    jooq.fetchValue("select array_to_string(reloptions, ',') from pg_class where relname = 'spinagent_objects'") ==
        'fillfactor=70'
  }
}
