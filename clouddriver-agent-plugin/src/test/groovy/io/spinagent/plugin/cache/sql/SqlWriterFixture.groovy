package io.spinagent.plugin.cache.sql

import static io.spinagent.plugin.cache.format.Manifests.ACCOUNT

import com.google.protobuf.ByteString
import io.micrometer.core.instrument.MeterRegistry
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.cache.format.FormatOptions
import io.spinagent.plugin.cache.format.Manifests
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.store.SpinAgentSchema
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.Kind
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.ResyncMarker
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.testkit.db.CatsTemplateTables
import io.spinagent.testkit.db.EmbeddedDatabase
import java.time.Clock
import java.time.Instant
import java.time.ZoneOffset
import java.util.concurrent.TimeUnit
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import spock.lang.Shared
import spock.lang.Specification

/**
 * A real database for the SQL writer's specifications (subclasses choose the engine, started once
 * per class), the writer as the plugin makes it (one committer), and the stream an agent sends.
 * Objects are Manifests' application: Deployment → ReplicaSet → Pods, a Service, an Ingress.
 */
abstract class SqlWriterFixture extends Specification {

  @Shared EmbeddedDatabase db
  @Shared DSLContext jooq
  @Shared CatsReader reader
  @Shared SqlWriterThreads threads = new SqlWriterThreads(1)

  MutableClock clock = new MutableClock(1_700_000_000_000L)
  MeterRegistry meters = new SimpleMeterRegistry()
  SqlCacheWriter writer
  long sequence = 0

  abstract EmbeddedDatabase startDatabase()

  def setupSpec() {
    db = startDatabase()
    CatsTemplateTables.create(db)
    SpinAgentSchema.migrate(db.dataSource())
    jooq = DSL.using(db.dataSource(), SQLDialect.valueOf(db.dialect()))
    SpinAgentSchema.migrate(jooq) // idempotent, and through jOOQ as in Clouddriver
    reader = new CatsReader(jooq)
  }

  def cleanupSpec() {
    threads.close()
    db?.close()
  }

  def setup() {
    cacheTables().each { jooq.execute("delete from " + it) }
    jooq.execute("delete from spinagent_objects")
    jooq.execute("delete from spinagent_resume_points")
    writer = newWriter()
  }

  SqlCacheWriter newWriter(int rememberedObjects = new SpinAgentProperties.Cache().rememberedObjects, DSLContext jooq = this.jooq,
                           CachedKinds kinds = CachedKinds.defaults()) {
    new SqlCacheWriter(jooq, new SqlWriterSettings(kinds, rememberedObjects, null), { FormatOptions.DEFAULTS }, threads, meters, clock)
  }

  List<String> cacheTables() {
    String schemaCondition = db.dialect() == 'POSTGRES' ? "table_schema = current_schema()" : "table_schema = database()"
    jooq.fetch("select table_name from information_schema.tables where " + schemaCondition + " and lower(table_name) like 'cats_v1_%'")
        .collect { it.get(0, String) }
        .findAll { !it.toLowerCase().contains('template') }
  }

  int countRows(String table) {
    jooq.fetchCount(DSL.table(DSL.unquotedName(table)))
  }

  int totalCacheRows() {
    cacheTables().sum { countRows(it) } as Integer ?: 0
  }

  // ------------------------------------------------------------------ stream helpers

  static Kind kindOf(Map object) {
    String apiVersion = object.apiVersion
    String group = apiVersion.contains('/') ? apiVersion.split('/')[0] : ''
    String version = apiVersion.contains('/') ? apiVersion.split('/')[1] : apiVersion
    Kind.newBuilder().setGroup(group).setVersion(version).setKind(object.kind as String).build()
  }

  SinkEntry upsert(Map object, String rv) {
    Map copy = Manifests.MAPPER.readValue(Manifests.MAPPER.writeValueAsString(object), Map)
    copy.metadata.resourceVersion = rv
    new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(++sequence).setKind(kindOf(object))
        .setNamespace(object.metadata.namespace ?: '').setName(object.metadata.name as String)
        .setResourceVersion(rv).setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFromUtf8(Manifests.MAPPER.writeValueAsString(copy))).build())
  }

  SinkEntry delete(Map object, String rv) {
    new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(++sequence).setKind(kindOf(object))
        .setNamespace(object.metadata.namespace ?: '').setName(object.metadata.name as String)
        .setResourceVersion(rv).setType(ChangeType.CHANGE_TYPE_DELETE).build())
  }

  SinkEntry begin(Map sample, String id) {
    marker(sample, id, ResyncPhase.RESYNC_PHASE_BEGIN)
  }

  SinkEntry end(Map sample, String id) {
    marker(sample, id, ResyncPhase.RESYNC_PHASE_END)
  }

  SinkEntry marker(Map sample, String id, ResyncPhase phase) {
    new SinkEntry.Resync(ResyncMarker.newBuilder().setAccount(ACCOUNT).setKind(kindOf(sample))
        .setPhase(phase).setSequence(++sequence).setResyncId(id).build())
  }

  CommitOutcome commit(List<SinkEntry> entries) {
    writer.commit(new SinkBatch(ACCOUNT, entries)).toCompletableFuture().get(60, TimeUnit.SECONDS)
  }

  CommitOutcome commit(SinkEntry... entries) {
    commit(entries as List)
  }

  /** A complete listing of each kind, as the agent sends after a claim. */
  void streamListing(List<Map> objects, String rv = '1') {
    objects.groupBy { it.kind }.each { kind, items ->
      List<SinkEntry> entries = [begin(items[0], "listing-$kind-$rv")]
      items.each { entries << upsert(it, rv) }
      entries << end(items[0], "listing-$kind-$rv")
      commit(entries)
    }
  }

  static Map pod2() {
    Map p = Manifests.pod()
    p.metadata.name = 'frontend-7d9f8c6b5-q9z4m'
    p.metadata.uid = 'p-2'
    p
  }

  static List<Map> application() {
    [Manifests.deployment(), Manifests.replicaSet(), Manifests.pod(), pod2(), Manifests.service(), Manifests.ingress()]
  }

  Map row(String type, String id) {
    def r = jooq.fetchOne("select body_hash, last_updated, agent from " + writer.tables().resourceTable(type) + " where id = ?", id)
    r == null ? null : [bodyHash: r.get(0, String), lastUpdated: r.get(1, Long), agent: r.get(2, String)]
  }

  static Map normalised(Map relationships) {
    relationships.findAll { k, v -> !v.isEmpty() }.collectEntries { k, v -> [k, v as Set] }
  }

  SinkEntry upsertText(String name, String json) {
    new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(++sequence).setKind(kindOf(Manifests.service()))
        .setNamespace(Manifests.NS).setName(name).setResourceVersion('1').setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFromUtf8(json)).build())
  }

  String body(String type, String id) {
    jooq.fetchOne("select body from " + writer.tables().resourceTable(type) + " where id = ?", id)?.get(0, String)
  }

  static void retry(Closure work) {
    Exception last = null
    for (int i = 0; i < 30; i++) {
      try {
        work()
        return
      } catch (Exception e) {
        last = e
        Thread.sleep(500)
      }
    }
    throw last
  }

  static class MutableClock extends Clock {
    long millis

    MutableClock(long millis) {
      this.millis = millis
    }

    void advance(long ms) {
      millis += ms
    }

    @Override
    long millis() {
      millis
    }

    @Override
    Instant instant() {
      Instant.ofEpochMilli(millis)
    }

    @Override
    java.time.ZoneId getZone() {
      ZoneOffset.UTC
    }

    @Override
    Clock withZone(java.time.ZoneId zone) {
      this
    }
  }
}
