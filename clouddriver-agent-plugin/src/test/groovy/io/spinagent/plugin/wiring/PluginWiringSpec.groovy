package io.spinagent.plugin.wiring

import static io.spinagent.plugin.cache.format.Manifests.ACCOUNT
import static io.spinagent.protocol.v1.PluginMessage.BodyCase.WELCOME

import com.google.protobuf.ByteString
import io.spinagent.plugin.PluginReplica
import io.spinagent.plugin.accounts.AccountMember
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.cache.ChangeSink
import io.spinagent.plugin.cache.DiscardingSink
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.cache.format.CacheTypes
import io.spinagent.plugin.cache.format.Manifests
import io.spinagent.plugin.cache.sql.CatsReader
import io.spinagent.plugin.cache.sql.SqlCacheWriter
import io.spinagent.plugin.cache.sql.SqlWriterThreads
import io.spinagent.plugin.grpc.RawAgent
import io.spinagent.plugin.store.NoDatabaseNotice
import io.spinagent.protocol.v1.AccountInfo
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ClusterIdentity
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedDatabase
import io.spinagent.testkit.db.EmbeddedMariaDb
import java.util.concurrent.TimeUnit
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.AutoCleanup
import spock.lang.Shared
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * The plugin as its Spring wiring builds it under a Clouddriver with and without kork-sql's
 * DSLContext: which alternative each bean takes, and what starts and stops with the context.
 */
class PluginWiringSpec extends Specification {

  @Shared @AutoCleanup EmbeddedDatabase db = EmbeddedMariaDb.launch()
  @Shared DSLContext jooq

  @AutoCleanup PluginReplica plugin
  @AutoCleanup RawAgent agent
  PollingConditions eventually = new PollingConditions(timeout: 20, delay: 0.05)
  long sequence = 0

  def setupSpec() {
    CatsTemplateTables.create(db)
    jooq = DSL.using(db.dataSource(), SQLDialect.MYSQL)
  }

  def setup() {
    jooq.fetch("select table_name from information_schema.tables where table_schema = database()"
        + " and (table_name like 'spinagent%' or (table_name like 'cats_v1_%' and table_name not like '%template%'))")
        .collect { it.get(0, String) }
        .each { jooq.execute("drop table $it") }
  }

  def "with kork-sql's DSLContext the plugin writes Clouddriver's cache, and brings its own tables and Clouddriver's cache tables up to date when it starts"() {
    when:
    plugin = new PluginReplica(jooq, [:])

    then:
    plugin.bean(ChangeSink) instanceof SqlCacheWriter
    tables().containsAll(['spinagent_databasechangelog', 'spinagent_accounts', 'spinagent_objects', 'spinagent_operations'])

    and: "the cache tables of every type Clouddriver's Kubernetes provider searches"
    def names = (plugin.bean(ChangeSink) as SqlCacheWriter).tables()
    tables().containsAll(CacheTypes.CLOUDDRIVER_TYPES.collectMany { [names.resourceTable(it), names.relTable(it)]*.toLowerCase() })
  }

  def "without a database the plugin says so when it starts, and acknowledges what agents stream without keeping it"() {
    given:
    def appender = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>()
    def logger = org.slf4j.LoggerFactory.getLogger(NoDatabaseNotice) as ch.qos.logback.classic.Logger
    appender.start()
    logger.addAppender(appender)

    when:
    plugin = new PluginReplica(null, [:])

    then:
    plugin.bean(ChangeSink) instanceof DiscardingSink
    def notice = appender.list*.formattedMessage.find { it.contains("without Clouddriver's SQL database") }
    notice != null
    notice.contains('acknowledged and dropped')

    when: 'an agent lists its account'
    agent = new RawAgent("127.0.0.1:${plugin.grpcPort()}")
    agent.hello('agent-1', [RawAgent.account('prod')])
    agent.next(WELCOME)
    agent.resync('prod', 1, ResyncPhase.RESYNC_PHASE_BEGIN).upsert('prod', 2, 'web').resync('prod', 3, ResyncPhase.RESYNC_PHASE_END)

    then: 'everything is acknowledged, and the account is ACTIVE'
    agent.awaitAck('prod', 3) == 3
    plugin.accounts().find('prod').get().state() == AccountState.ACTIVE

    cleanup:
    logger.detachAppender(appender)
  }

  def "the writer's threads stop when the plugin's context closes, after the batch in flight"() {
    given:
    plugin = new PluginReplica(jooq, [:])
    def writer = plugin.bean(ChangeSink)
    def threads = plugin.bean(SqlWriterThreads)

    when: 'a batch is handed over and the context closes at once'
    def committed = writer.commit(new SinkBatch(ACCOUNT, [Manifests.pod(), Manifests.replicaSet()].collect { upsert(it) }))
    plugin.close()

    then: 'the batch committed, and every thread of the writer has ended'
    committed.toCompletableFuture().isDone() && !committed.toCompletableFuture().isCompletedExceptionally()
    new CatsReader(jooq).all(CacheTypes.POD).size() == 1
    threads.isTerminated()
  }

  def "an account its agent reports as onlySpinnakerManaged caches only what Spinnaker manages"() {
    given: 'the account claimed with onlySpinnakerManaged'
    plugin = new PluginReplica(jooq, [:])
    def member = [agentId: { 'agent-1' }, sessionId: { 's-1' }, principal: { 'anonymous' }, decisionChanged: { d -> }] as AccountMember
    plugin.accounts().claim(member, AccountInfo.newBuilder().setName(ACCOUNT).setOnlySpinnakerManaged(true)
        .setCluster(ClusterIdentity.newBuilder().setApiServerHost('10.0.0.1:6443')).build())

    when: 'a managed ReplicaSet and an unannotated StatefulSet arrive'
    plugin.bean(ChangeSink).commit(new SinkBatch(ACCOUNT, [upsert(Manifests.replicaSet()), upsert(Manifests.statefulSet())]))
        .toCompletableFuture().get(60, TimeUnit.SECONDS)

    then:
    new CatsReader(jooq).all(CacheTypes.REPLICA_SET).size() == 1
    new CatsReader(jooq).all(CacheTypes.STATEFUL_SET).isEmpty()
  }

  private List<String> tables() {
    jooq.fetch("select lower(table_name) from information_schema.tables where table_schema = database()")
        .collect { it.get(0, String) }
  }

  private SinkEntry upsert(Map object) {
    String apiVersion = object.apiVersion
    def kind = Kind.newBuilder()
        .setGroup(apiVersion.contains('/') ? apiVersion.split('/')[0] : '')
        .setVersion(apiVersion.contains('/') ? apiVersion.split('/')[1] : apiVersion)
        .setKind(object.kind as String)
    new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(++sequence).setKind(kind)
        .setNamespace(object.metadata.namespace ?: '').setName(object.metadata.name as String)
        .setResourceVersion('1').setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFromUtf8(Manifests.MAPPER.writeValueAsString(object))).build())
  }
}
