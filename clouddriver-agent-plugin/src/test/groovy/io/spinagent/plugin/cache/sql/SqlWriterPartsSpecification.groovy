package io.spinagent.plugin.cache.sql

import static io.spinagent.plugin.cache.sql.RowTally.Operation.DELETE
import static io.spinagent.plugin.cache.sql.RowTally.Operation.WRITE

import io.spinagent.plugin.cache.format.CacheKeys
import io.spinagent.plugin.cache.format.CacheTypes
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Method
import java.lang.reflect.Proxy
import java.sql.Connection
import javax.sql.DataSource
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL

/**
 * The writer's table parts alone, each in a transaction of its own against a real database: rows of
 * several accounts read and written by one statement each, and what they remember.
 */
abstract class SqlWriterPartsSpecification extends SqlWriterFixture {

  int statements

  /**
   * Every JDBC statement on this context's connections is counted, jOOQ's and those the writer binds
   * itself (the upserts of spinagent_objects and of bodies).
   */
  DSLContext counting() {
    DataSource source = db.dataSource()
    DataSource countingSource = [getConnection: { Object[] args -> countingConnection(source.getConnection()) }] as DataSource
    DSL.using(countingSource, SQLDialect.valueOf(db.dialect()))
  }

  Connection countingConnection(Connection connection) {
    (Connection) Proxy.newProxyInstance(getClass().classLoader, [Connection] as Class[], { Object proxy, Method method, Object[] args ->
      if (method.name in ['prepareStatement', 'createStatement', 'prepareCall']) {
        statements++
      }
      try {
        method.invoke(connection, args)
      } catch (InvocationTargetException e) {
        throw e.cause
      }
    })
  }

  def <T> T inTransaction(Closure<T> work) {
    T result = null
    counting().transaction { cfg -> result = work(DSL.using(cfg)) }
    result
  }

  def "spinagent_objects: the rows of several accounts are written by one statement, read by one query, and remembered per account"() {
    given:
    def upsert = new ObjectVersions.UpsertSql(jooq)
    def committed = new CommittedRows(100)
    Map<String, CommittedRows.Scope> scopes = ['a', 'b', 'c'].collectEntries { [(it): new CommittedRows.Scope(it)] }
    def keys = ['a', 'b', 'c'].collect { new ObjectVersions.Key(it, 'apps', 'Deployment', 'web', 'frontend') }
    def tally = new RowTally()

    when:
    inTransaction { ctx ->
      def versions = new ObjectVersions(ctx, upsert, committed, clock.millis(), tally)
      keys.eachWithIndex { k, i -> versions.save(k, new ObjectVersions.Version("${i + 1}", false, 4)) }
      versions.flush()
      versions.remember(scopes, { true })
    }

    then:
    tally.get(RowTally.Table.OBJECT, WRITE) == 3
    jooq.fetch('select account, resource_version, cache_format from spinagent_objects')
        .collectEntries { [(it.get(0)): [it.get(1), it.get(2)]] } == [a: ['1', 4], b: ['2', 4], c: ['3', 4]]

    when: 'a later transaction that remembers nothing needs one query for all three'
    statements = 0
    def read = inTransaction { ctx ->
      def versions = new ObjectVersions(ctx, upsert, new CommittedRows(0), clock.millis(), new RowTally())
      versions.prefetch(keys.collectEntries { [(it): scopes[it.account()]] })
      keys.collect { versions.get(it, scopes[it.account()]) }
    }

    then:
    read*.resourceVersion() == ['1', '2', '3']
    statements == 1

    when: 'one that remembers them, none; unless an account was forgotten'
    statements = 0
    scopes.b = new CommittedRows.Scope('b')
    def recalled = inTransaction { ctx ->
      def versions = new ObjectVersions(ctx, upsert, committed, clock.millis(), new RowTally())
      versions.prefetch(keys.collectEntries { [(it): scopes[it.account()]] })
      keys.collect { versions.get(it, scopes[it.account()]) }
    }

    then:
    recalled*.resourceVersion() == ['1', '2', '3']
    statements == 1 // b's row, read
  }

  def "bodies: each account's row of one application is written and deleted by its agent, the accounts' rows in one statement"() {
    given:
    def tables = new CacheTables(jooq, null)
    tables.create([CacheTypes.APPLICATIONS])
    String table = tables.resourceTable(CacheTypes.APPLICATIONS)
    String key = CacheKeys.application('shop')
    def tally = new RowTally()
    def upsert = new BodyRows.UpsertSql(jooq)

    when:
    statements = 0
    inTransaction { ctx ->
      def bodies = new BodyRows(ctx, upsert, clock.millis(), tally)
      ['a', 'b'].each { bodies.write(table, new BodyRows.Body(tables.agentColumn(it), key, null, 'f' * 64, '{"id":"' + it + '"}')) }
      bodies.flush()
    }

    then:
    statements == 1
    jooq.fetch("select agent from " + table).collect { it.get(0) } as Set == [tables.agentColumn('a'), tables.agentColumn('b')] as Set

    when:
    inTransaction { ctx ->
      def bodies = new BodyRows(ctx, upsert, clock.millis(), tally)
      bodies.write(table, new BodyRows.Body(tables.agentColumn('a'), key, null, 'f' * 64, '{}'))
      bodies.delete(table, tables.agentColumn('a'), key) // the later one wins
      bodies.flush()
    }

    then:
    jooq.fetch("select agent from " + table).collect { it.get(0) } == [tables.agentColumn('b')]
    tally.get(RowTally.Table.BODY, WRITE) == 2
    tally.get(RowTally.Table.BODY, DELETE) == 1
  }

  def "relationship rows: an object's rows become what it should relate to, both directions, only the differences written"() {
    given: 'a pod related to a replicaSet and a stale service'
    def tables = new CacheTables(jooq, null)
    tables.create([CacheTypes.POD, CacheTypes.REPLICA_SET, CacheTypes.SERVICE, CacheTypes.APPLICATIONS])
    def scope = new CommittedRows.Scope('prod')
    String pod = CacheKeys.infrastructure('pod', 'prod', 'web', 'p')
    String rs = CacheKeys.infrastructure('replicaSet', 'prod', 'web', 'rs')
    String svc = CacheKeys.infrastructure('service', 'prod', 'web', 'old')
    String app = CacheKeys.application('shop')
    inTransaction { ctx ->
      def rows = new RelationshipRows(ctx, new RelationshipRows.InsertSql(ctx), tables, new CommittedRows(0), clock.millis(), new RowTally())
      rows.sync(scope, pod, 'pod', [(rs): 'replicaSet', (svc): 'service'])
      rows.flush()
    }
    def tally = new RowTally()

    when: 'it should relate to the replicaSet and the application'
    Set<String> unlinked = inTransaction { ctx ->
      def rows = new RelationshipRows(ctx, new RelationshipRows.InsertSql(ctx), tables, new CommittedRows(0), clock.millis(), tally)
      def result = rows.sync(scope, pod, 'pod', [(rs): 'replicaSet', (app): 'applications'])
      rows.flush()
      result
    }

    then: "the service's two rows went, the application's two came, the replicaSet's stayed"
    tally.get(RowTally.Table.RELATIONSHIP, DELETE) == 2
    tally.get(RowTally.Table.RELATIONSHIP, WRITE) == 2
    unlinked.isEmpty()
    relationsOf(tables, 'pod', pod) == [rs, app] as Set
    relationsOf(tables, 'service', svc).isEmpty()
    relationsOf(tables, 'applications', app) == [pod] as Set
    relationsOf(tables, 'replicaSet', rs) == [pod] as Set

    when: 'it stops relating to the application: the application is unlinked, to be settled'
    unlinked = inTransaction { ctx ->
      def rows = new RelationshipRows(ctx, new RelationshipRows.InsertSql(ctx), tables, new CommittedRows(0), clock.millis(), new RowTally())
      def result = rows.sync(scope, pod, 'pod', [(rs): 'replicaSet'])
      rows.flush()
      result
    }

    then:
    unlinked == [app] as Set
    relationsOf(tables, 'applications', app).isEmpty()
  }

  Set<String> relationsOf(CacheTables tables, String type, String id) {
    jooq.fetch("select rel_id from " + tables.relTable(type) + " where id = ?", id).collect { it.get(0, String) } as Set
  }

  def "resume points: the last of each account and kind, read back for many accounts in one query"() {
    given:
    def table = new ResumePointTable(jooq)
    def tally = new RowTally()
    def progress = { String kind, String rv ->
      io.spinagent.protocol.v1.WatchProgress.newBuilder()
          .setKind(io.spinagent.protocol.v1.Kind.newBuilder().setVersion('v1').setKind(kind).setPlural(kind.toLowerCase() + 's').setNamespaced(true))
          .setResourceVersion(rv).build()
    }

    when:
    inTransaction { ctx ->
      table.write(ctx, [new ResumePointTable.Point('a', progress('Pod', '1')), new ResumePointTable.Point('b', progress('Pod', '2'))], 10L, tally)
    }
    inTransaction { ctx ->
      table.write(ctx, [new ResumePointTable.Point('a', progress('Pod', '3'))], 20L, tally)
      table.delete(ctx, [new ResumePointTable.KindOf('b', '', 'Pod')], tally)
    }
    statements = 0
    def points = new ResumePointTable(counting()).of(['a', 'b', 'c'])

    then:
    statements == 1
    points.keySet() == ['a'] as Set
    points.a*.resourceVersion == ['3']
    points.a*.committedAtMillis == [20L]
    points.a[0].kind.plural == 'pods' && points.a[0].kind.namespaced
    tally.get(RowTally.Table.RESUME_POINT, WRITE) == 3
    tally.get(RowTally.Table.RESUME_POINT, DELETE) == 1
  }
}
