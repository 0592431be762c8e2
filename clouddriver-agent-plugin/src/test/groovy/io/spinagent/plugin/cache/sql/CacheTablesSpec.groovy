package io.spinagent.plugin.cache.sql

import io.spinagent.plugin.cache.format.CacheTypes
import io.spinagent.protocol.v1.Kind
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.Specification
import spock.lang.Tag

/** Cache types of kinds, and the names cats-sql gives their tables and agent values. */
@Tag('one-class')
class CacheTablesSpec extends Specification {

  static Kind kind(String group, String version, String name) {
    Kind.newBuilder().setGroup(group).setVersion(version).setKind(name).build()
  }

  def "a kind's cache type is Clouddriver's name for it"() {
    expect:
    CacheTables.typeOf(kind('apps', 'v1', 'ReplicaSet')) == 'replicaSet'
    CacheTables.typeOf(kind('', 'v1', 'Pod')) == 'pod'
    CacheTables.typeOf(kind('', '', 'Service')) == 'service'
    CacheTables.typeOf(kind('autoscaling', 'v2', 'HorizontalPodAutoscaler')) == 'horizontalpodautoscaler'
    CacheTables.typeOf(kind('cert-manager.io', 'v1', 'Certificate')) == 'Certificate.cert-manager.io'
  }

  def "Clouddriver's kinds: 33 with handlers, none among them, and the two logical types, each with tables that fit MySQL's names"() {
    given:
    def tables = new CacheTables(DSL.using(SQLDialect.MYSQL), null)

    expect:
    CacheTypes.CLOUDDRIVER_TYPES.size() == 35
    CacheTypes.CLOUDDRIVER_TYPES.containsAll(['none', 'applications', 'clusters', 'horizontalpodautoscaler', 'podPreset'])
    !CacheTypes.CLOUDDRIVER_TYPES.contains('csiDriver')
    CacheTypes.CLOUDDRIVER_TYPES.every { type ->
      tables.resourceTable(type) == 'cats_v1_' + type && tables.relTable(type) == 'cats_v1_' + type + '_rel'
    }
  }

  def "rows name the account's own agent; both rows of an edge the forward target's type"() {
    given:
    def tables = new CacheTables(DSL.using(SQLDialect.POSTGRES), 'ns')

    expect:
    tables.agentColumn('prod') == 'prod/SpinAgentCachingAgent'
    tables.relAgent('pod', 'prod') == 'pod:prod/SpinAgentCachingAgent'
    tables.resourceTable('pod') == 'cats_v1_ns_pod'
    tables.dialect() == CacheTypes.Dialect.POSTGRES
  }
}
