package io.spinagent.plugin.cache.sql

import static io.spinagent.plugin.cache.format.Manifests.ACCOUNT
import static io.spinagent.plugin.cache.format.Manifests.infra

import com.google.protobuf.ByteString
import io.micrometer.prometheus.PrometheusConfig
import io.micrometer.prometheus.PrometheusMeterRegistry
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.AgentAccount
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.cache.format.AccountSnapshot
import io.spinagent.plugin.cache.format.CacheKeys
import io.spinagent.plugin.cache.format.CacheRecord
import io.spinagent.plugin.cache.format.CacheTypes
import io.spinagent.plugin.cache.format.FormatOptions
import io.spinagent.plugin.cache.format.ManifestCacheRecords
import io.spinagent.plugin.cache.format.Manifests
import io.spinagent.plugin.config.SpinAgentProperties
import io.spinagent.plugin.store.SpinAgentSchema
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ObjectChange
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import org.jooq.DSLContext
import org.jooq.ExecuteContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.jooq.impl.DefaultConfiguration
import org.jooq.impl.DefaultExecuteListener
import org.jooq.impl.DefaultExecuteListenerProvider
import spock.util.concurrent.PollingConditions

/**
 * The SQL cache writer against a real database; subclasses choose the engine (started once per
 * class). Objects are Manifests' application: Deployment → ReplicaSet → Pods, a Service, an Ingress.
 */
abstract class SqlCacheWriterSpecification extends SqlWriterFixture {

  // ------------------------------------------------------------------ features

  def "a streamed application reads back exactly as Clouddriver's caching agent would derive it"() {
    when:
    streamListing(application())
    def expected = AccountSnapshot.build(ACCOUNT, application().collect { Map o -> Map c = Manifests.MAPPER.readValue(Manifests.MAPPER.writeValueAsString(o), Map); c.metadata.resourceVersion = '1'; Manifests.json(c) }, FormatOptions.DEFAULTS)

    then: 'every record is there with the same attributes and relationships'
    expected.records().each { id, record ->
      Map actual = reader.get(record.type(), id)
      assert actual != null: "missing $id"
      Map attrs = new LinkedHashMap(actual.attributes)
      attrs.remove('cacheExpiry')
      assert Manifests.MAPPER.valueToTree(attrs) == Manifests.MAPPER.valueToTree(record.attributes())
      assert normalised(actual.relationships) == normalised(record.relationships())
      assert actual.ttlSeconds == record.ttlSeconds()
    }
    reader.all(CacheTypes.POD).size() == 2

    and: 'logical rows carry cacheExpiry = now + 600 s; bodies only the sticky empty groups'
    reader.get(CacheTypes.CLUSTERS, CacheKeys.cluster(ACCOUNT, 'shop', 'deployment frontend')).attributes.cacheExpiry == clock.millis() + 600_000
    Map body = Manifests.MAPPER.readValue(jooq.fetchOne("select body from " + writer.tables().resourceTable(CacheTypes.REPLICA_SET)).get(0, String), Map)
    body.relationships == [pod: [], service: []]
    body.keySet() as List == ['id', 'ttlSeconds', 'attributes', 'relationships']

    and: 'one agent value for every row of the account'
    jooq.fetch("select distinct agent from " + writer.tables().resourceTable(CacheTypes.POD)).collect { it.get(0, String) } == ["$ACCOUNT/SpinAgentCachingAgent"]

    and: "Deck's walk: application → cluster → server group → instances and load balancers"
    reader.walk('shop') == [
        clusters     : ['deployment frontend': [
            serverGroups: ['frontend-7d9f8c6b5': [instances: ['frontend-7d9f8c6b5-x2x7k', 'frontend-7d9f8c6b5-q9z4m'] as Set, loadBalancers: ['frontend'] as Set]],
            managers    : ['frontend'] as Set]],
        loadBalancers: ['frontend'] as Set,
        ingresses    : ['shop'] as Set]
  }

  /** A new writer reporting to a Prometheus registry, as in a Clouddriver scraped by Prometheus. */
  PrometheusMeterRegistry writerScrapedByPrometheus() {
    def prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
    meters = prometheus
    writer = newWriter()
    prometheus
  }

  def "the time from the agent's observation to the commit is served to Prometheus as spinagent.cache.change.latency"() {
    given:
    def prometheus = writerScrapedByPrometheus()

    when: "a change the agent received 1.5 s before the commit (the writer reads the spec's clock), and one from an agent that sends no time"
    def observed = upsert(Manifests.deployment(), '1')
    observed = new SinkEntry.Change(observed.change().toBuilder().setObservedAtMillis(clock.millis() - 1500).build())
    commit(observed, upsert(Manifests.service(), '1'))
    def scrape = prometheus.scrape()

    then: 'one observation of 1.5 s, in the histogram buckets from 1.5 s up'
    scrape.contains('spinagent_cache_change_latency_seconds_count 1.0')
    scrape.contains('spinagent_cache_change_latency_seconds_sum 1.5')
    scrape.contains('spinagent_cache_change_latency_seconds_bucket{le="+Inf",} 1.0')
    def buckets = scrape.readLines().findAll { it.startsWith('spinagent_cache_change_latency_seconds_bucket{le="') && !it.contains('+Inf') }
        .collect { line -> [(line =~ /le="([0-9.]+)"/)[0][1] as double, line.substring(line.lastIndexOf(' ') + 1) as double] }
    buckets.size() > 10
    buckets.every { bucket -> bucket[1] == (bucket[0] >= 1.5 ? 1.0 : 0.0) }
  }

  def "an account that writes hundreds of changes is counted busy, served to Prometheus as spinagent.cache.accounts.busy, until it quietens down"() {
    given:
    def prometheus = writerScrapedByPrometheus()

    when: 'one change'
    commit(upsert(Manifests.service(), '1'))

    then:
    prometheus.scrape().contains('spinagent_cache_accounts_busy 0.0')

    when: 'a listing of 150 Services is handed over (scraped at once: an account is busy only while it streams)'
    def listing = writer.commit(new SinkBatch(ACCOUNT, (1..150).collect { n ->
      Map service = Manifests.MAPPER.readValue(Manifests.MAPPER.writeValueAsString(Manifests.service()), Map)
      service.metadata.name = "service-$n".toString()
      upsert(service, '2')
    }))
    def scrape = prometheus.scrape()
    listing.toCompletableFuture().get(60, TimeUnit.SECONDS)

    then:
    scrape.contains('spinagent_cache_accounts_busy 1.0')
    reader.all(CacheTypes.SERVICE).size() == 151

    and: 'soon after it is quiet again'
    new PollingConditions(timeout: 10).eventually {
      assert prometheus.scrape().contains('spinagent_cache_accounts_busy 0.0')
    }
  }

  def "updates, scaling and deletes touch only the rows they concern"() {
    given:
    streamListing(application())
    def rsKey = infra(CacheTypes.REPLICA_SET, 'frontend-7d9f8c6b5')
    def svcKey = infra(CacheTypes.SERVICE, 'frontend')

    when: 'the service stops selecting the replicaSet'
    Map svc = Manifests.service()
    svc.spec.selector = [app: 'other']
    Map rsRowBefore = row(CacheTypes.REPLICA_SET, rsKey)
    clock.advance(1000)
    commit(upsert(svc, '2'))

    then: 'the relationship rows change, not the replicaSet body'
    CatsReader.related(reader.get(CacheTypes.REPLICA_SET, rsKey), CacheTypes.SERVICE).isEmpty()
    CatsReader.related(reader.get(CacheTypes.SERVICE, svcKey), CacheTypes.REPLICA_SET).isEmpty()
    row(CacheTypes.REPLICA_SET, rsKey) == rsRowBefore

    when: 'it selects it again, a pod goes and a third comes'
    Map pod3 = Manifests.pod()
    pod3.metadata.name = 'frontend-7d9f8c6b5-new01'
    commit(upsert(Manifests.service(), '3'), delete(Manifests.pod(), '4'), upsert(pod3, '5'))

    then:
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'] ==
        [instances: ['frontend-7d9f8c6b5-q9z4m', 'frontend-7d9f8c6b5-new01'] as Set, loadBalancers: ['frontend'] as Set]
    reader.get(CacheTypes.POD, infra(CacheTypes.POD, 'frontend-7d9f8c6b5-x2x7k')) == null
    row(CacheTypes.REPLICA_SET, rsKey) == rsRowBefore

    when: 'the deployment, replicaSet and pods go: the cluster goes with its last member'
    commit(delete(Manifests.deployment(), '6'), delete(Manifests.replicaSet(), '7'), delete(pod2(), '8'), delete(pod3, '9'))

    then:
    reader.all(CacheTypes.CLUSTERS).isEmpty()
    reader.walk('shop') == [clusters: [:], loadBalancers: ['frontend'] as Set, ingresses: ['shop'] as Set]

    when: 'the service and ingress go: the application goes, and nothing is left'
    commit(delete(Manifests.service(), '10'), delete(Manifests.ingress(), '11'))

    then:
    reader.walk('shop') == null
    totalCacheRows() == 0
  }

  def "batches of hundreds of changes, derived on helper threads and written in several statements, read back as derived (#remembered objects remembered)"() {
    given: 'an application whose replicaSet has 202 pods, listed in one batch per kind'
    writer = newWriter(remembered)
    Map<String, Map> live = [:]
    application().each { live[it.kind + '/' + it.metadata.name] = it }
    (0..<200).each { i ->
      Map p = Manifests.pod()
      p.metadata.name = 'frontend-7d9f8c6b5-p' + String.format('%03d', i)
      live['Pod/' + p.metadata.name] = p
    }
    streamListing(live.values() as List)

    when: 'one batch updates every pod, replaces 30 of them (delete, create) and deletes the service'
    List<SinkEntry> entries = []
    Map<String, List> podRows = [:] // name → [resource_version, deleted]
    int rv = 10
    live.values().findAll { it.kind == 'Pod' }.toList().eachWithIndex { Map p, int i ->
      if (i < 30) {
        podRows[p.metadata.name] = ["$rv", true]
        entries << delete(p, "${rv++}")
        live.remove('Pod/' + p.metadata.name)
        Map replacement = Manifests.pod()
        replacement.metadata.name = p.metadata.name + '-new'
        live['Pod/' + replacement.metadata.name] = replacement
        podRows[replacement.metadata.name] = ["$rv", false]
        entries << upsert(replacement, "${rv++}")
      } else {
        p.status.phase = 'Succeeded'
        podRows[p.metadata.name] = ["$rv", false]
        entries << upsert(p, "${rv++}")
      }
    }
    entries << delete(Manifests.service(), "${rv++}")
    live.remove('Service/frontend')
    commit(entries)
    def expected = AccountSnapshot.build(ACCOUNT, live.values().collect { Manifests.json(it) }, FormatOptions.DEFAULTS)

    then: 'every record is what the derivation of the remaining objects gives, and no other is there'
    expected.records().each { id, record ->
      Map actual = reader.get(record.type(), id)
      assert actual != null: "missing $id"
      if (record.attributes().manifest != null) { // metadata.resourceVersion differs: it is the stream's
        assert actual.attributes.manifest.status == Manifests.MAPPER.convertValue(record.attributes().manifest.get('status'), Map)
      }
      assert normalised(actual.relationships) == normalised(record.relationships())
    }
    reader.all(CacheTypes.POD).size() == 202
    reader.all(CacheTypes.SERVICE).isEmpty()
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'].instances.size() == 202

    and: "spinagent_objects holds each pod's newest resource version, a deleted pod's as a tombstone"
    jooq.fetch("select name, resource_version, deleted from spinagent_objects where account = ? and kind = 'Pod'", ACCOUNT)
        .collectEntries { [(it.get(0, String)): [it.get(1, String), it.get(2, Boolean)]] } == podRows
    jooq.fetchValue("select count(*) from spinagent_objects where last_updated <> ?", clock.millis()) == 0

    when: 'one batch deletes everything'
    commit(live.values().collect { delete(it, "${rv++}") })

    then: 'the logical rows go with their last members, and nothing is left'
    reader.walk('shop') == null
    totalCacheRows() == 0

    where: 'none (every batch reads its rows), fewer than the account has, all'
    remembered << [0, 50, 100_000]
  }

  def "a replica that gets an account back reads what another replica wrote meanwhile, not what it remembers"() {
    given: 'this replica streamed the application; then its agent left'
    streamListing(application())
    writer.onStateChange(new AgentAccount(ACCOUNT, null, AccountState.ORPHANED, clock.instant(), null, [], null, null), AccountState.ACTIVE)

    and: "another replica took the account: its listing has a service that selects nothing, and one pod less"
    SqlCacheWriter otherReplica = newWriter()
    Map svc = Manifests.service()
    svc.spec.selector = [app: 'other']
    SqlCacheWriter self = writer
    writer = otherReplica
    streamListing([Manifests.deployment(), Manifests.replicaSet(), Manifests.pod(), svc, Manifests.ingress()], '2')
    writer = self
    assert CatsReader.related(reader.get(CacheTypes.SERVICE, infra(CacheTypes.SERVICE, 'frontend')), CacheTypes.REPLICA_SET).isEmpty()

    when: 'the agent claims the account here again and lists the application as it was'
    writer.onStateChange(new AgentAccount(ACCOUNT, null, AccountState.ACTIVATING, clock.instant(), null, [], null, null), AccountState.ORPHANED)
    streamListing(application(), '3')
    def expected = AccountSnapshot.build(ACCOUNT, application().collect { Manifests.json(it) }, FormatOptions.DEFAULTS)

    then: 'every relationship is there once, as derived'
    expected.records().each { id, record ->
      Map actual = reader.get(record.type(), id)
      assert actual != null: "missing $id"
      assert normalised(actual.relationships) == normalised(record.relationships())
    }
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'] ==
        [instances: ['frontend-7d9f8c6b5-x2x7k', 'frontend-7d9f8c6b5-q9z4m'] as Set, loadBalancers: ['frontend'] as Set]
    [CacheTypes.SERVICE, CacheTypes.REPLICA_SET, CacheTypes.POD].every { type ->
      jooq.fetch("select id, rel_id from " + writer.tables().relTable(type)).collect { [it.get(0), it.get(1)] }.with { it.size() == (it as Set).size() }
    }
  }

  def "a pod change writes the pod's rows and never its replicaSet's body"() {
    given:
    streamListing(application())
    def rsKey = infra(CacheTypes.REPLICA_SET, 'frontend-7d9f8c6b5')
    def podKey = infra(CacheTypes.POD, 'frontend-7d9f8c6b5-x2x7k')
    Map rsBefore = row(CacheTypes.REPLICA_SET, rsKey)
    Map podBefore = row(CacheTypes.POD, podKey)
    int relRowsBefore = countRows(writer.tables().relTable(CacheTypes.REPLICA_SET))

    when:
    clock.advance(5000)
    Map pod = Manifests.pod()
    pod.status.phase = 'Succeeded'
    commit(upsert(pod, '50'))

    then:
    row(CacheTypes.REPLICA_SET, rsKey) == rsBefore
    row(CacheTypes.POD, podKey).lastUpdated == podBefore.lastUpdated + 5000
    row(CacheTypes.POD, podKey).bodyHash != podBefore.bodyHash
    countRows(writer.tables().relTable(CacheTypes.REPLICA_SET)) == relRowsBefore
    reader.get(CacheTypes.POD, podKey).attributes.manifest.status.phase == 'Succeeded'
  }

  def "stale, duplicate and out-of-order changes never overwrite newer state"() {
    given:
    streamListing(application(), '10')
    def podKey = infra(CacheTypes.POD, 'frontend-7d9f8c6b5-x2x7k')
    Map newer = Manifests.pod()
    newer.status.phase = 'Newer'
    Map older = Manifests.pod()
    older.status.phase = 'Older'

    when: 'a newer change, then an older one in a later batch'
    commit(upsert(newer, '20'))
    commit(upsert(older, '15'))

    then:
    reader.get(CacheTypes.POD, podKey).attributes.manifest.status.phase == 'Newer'

    when: 'the same batch twice (a resend after a lost acknowledgement)'
    def entries = [upsert(newer, '21'), upsert(Manifests.service(), '21')]
    int rowsBefore = totalCacheRows()
    commit(entries)
    commit(entries)

    then: 'no duplicate rows'
    totalCacheRows() == rowsBefore

    when: 'a delete, then a late upsert older than the delete'
    commit(delete(Manifests.pod(), '30'))
    commit(upsert(older, '25'))

    then: 'the tombstone holds'
    reader.get(CacheTypes.POD, podKey) == null
    CatsReader.related(reader.get(CacheTypes.REPLICA_SET, infra(CacheTypes.REPLICA_SET, 'frontend-7d9f8c6b5')), CacheTypes.POD) ==
        [infra(CacheTypes.POD, 'frontend-7d9f8c6b5-q9z4m')] as Set

    when: 'a newer upsert after the delete (re-created)'
    commit(upsert(newer, '31'))

    then:
    reader.get(CacheTypes.POD, podKey) != null
  }

  def "a complete listing sweeps what it did not list, and readers never see the kind empty meanwhile"() {
    given:
    streamListing(application())
    def pod1Key = infra(CacheTypes.POD, 'frontend-7d9f8c6b5-x2x7k')
    def pod2Key = infra(CacheTypes.POD, 'frontend-7d9f8c6b5-q9z4m')

    when: 'a new listing of pods begins and lists only the second pod'
    commit(begin(Manifests.pod(), 'r2'))
    commit(upsert(pod2(), '2'))

    then: 'between BEGIN and END everything is still there'
    reader.all(CacheTypes.POD).keySet() == [pod1Key, pod2Key] as Set
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'].instances.size() == 2

    when: 'an END of another listing is ignored'
    commit(end(Manifests.pod(), 'unknown'))

    then:
    reader.all(CacheTypes.POD).keySet() == [pod1Key, pod2Key] as Set

    when:
    commit(end(Manifests.pod(), 'r2'))

    then: 'the unlisted pod and its relationship rows are gone; other kinds untouched'
    reader.all(CacheTypes.POD).keySet() == [pod2Key] as Set
    CatsReader.related(reader.get(CacheTypes.REPLICA_SET, infra(CacheTypes.REPLICA_SET, 'frontend-7d9f8c6b5')), CacheTypes.POD) == [pod2Key] as Set
    reader.all(CacheTypes.DEPLOYMENT).size() == 1
    jooq.fetchCount(DSL.table(DSL.unquotedName(writer.tables().relTable(CacheTypes.POD))), DSL.field(DSL.unquotedName('id')).eq(pod1Key)) == 0

    when: 'a plugin restart (empty memory) followed by the listing the agent sends after a claim'
    writer = newWriter()
    streamListing([Manifests.replicaSet(), pod2(), Manifests.deployment(), Manifests.service(), Manifests.ingress()], '3')

    then: 'the same rows, no duplicates'
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'] ==
        [instances: ['frontend-7d9f8c6b5-q9z4m'] as Set, loadBalancers: ['frontend'] as Set]
    jooq.fetchCount(DSL.table(DSL.unquotedName(writer.tables().relTable(CacheTypes.REPLICA_SET)))) ==
        jooq.fetchCount(DSL.selectDistinct(DSL.field(DSL.unquotedName('id')), DSL.field(DSL.unquotedName('rel_id'))).from(DSL.table(DSL.unquotedName(writer.tables().relTable(CacheTypes.REPLICA_SET)))))
  }

  def "with the database down nothing is acknowledged; the retried batch loses nothing"() {
    given:
    streamListing(application())
    Map pod3 = Manifests.pod()
    pod3.metadata.name = 'frontend-7d9f8c6b5-new01'
    def batch = new SinkBatch(ACCOUNT, [upsert(pod3, '40'), delete(Manifests.pod(), '41'), upsert(Manifests.service(), '42')])

    when: 'the database goes away'
    db.stop()
    writer.commit(batch).toCompletableFuture().get(60, TimeUnit.SECONDS)

    then: 'the commit fails, so the session would not acknowledge'
    thrown(ExecutionException)

    when: 'it comes back and the pipeline retries the same batch'
    db.start()
    retry { writer.commit(batch).toCompletableFuture().get(60, TimeUnit.SECONDS) }

    then:
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'].instances ==
        ['frontend-7d9f8c6b5-q9z4m', 'frontend-7d9f8c6b5-new01'] as Set
  }

  def "the database killed in the middle of a batch: nothing half-written, nothing acknowledged, nothing lost"() {
    given: 'a writer whose database dies at the 6th statement of the next batch'
    streamListing(application())
    int statements = 0
    boolean armed = false
    def killer = new DefaultExecuteListener() {
      @Override
      void executeStart(ExecuteContext ctx) {
        if (armed && ++statements == 6) {
          armed = false
          db.stop()
        }
      }
    }
    def killingJooq = DSL.using(new DefaultConfiguration()
        .set(db.dataSource()).set(SQLDialect.valueOf(db.dialect()))
        .set(new DefaultExecuteListenerProvider(killer)))
    writer = newWriter(100, killingJooq)
    writer.commit(new SinkBatch(ACCOUNT, [upsert(pod2(), '1')])).toCompletableFuture().get(60, TimeUnit.SECONDS) // tables known
    Map pod3 = Manifests.pod()
    pod3.metadata.name = 'frontend-7d9f8c6b5-new01'
    def batch = new SinkBatch(ACCOUNT, [upsert(pod3, '40'), delete(Manifests.pod(), '41'), upsert(Manifests.service(), '42')])

    when:
    armed = true
    writer.commit(batch).toCompletableFuture().get(60, TimeUnit.SECONDS)

    then: 'the commit fails'
    thrown(ExecutionException)
    statements >= 6

    when: 'the database is back: the first statements of the batch were rolled back'
    db.start()
    retry { jooq.fetchCount(DSL.table(DSL.unquotedName('spinagent_objects'))) }

    then:
    reader.get(CacheTypes.POD, infra(CacheTypes.POD, 'frontend-7d9f8c6b5-new01')) == null
    jooq.fetchCount(DSL.table(DSL.unquotedName('spinagent_objects')), DSL.field(DSL.unquotedName('name')).eq('frontend-7d9f8c6b5-new01')) == 0
    reader.get(CacheTypes.POD, infra(CacheTypes.POD, 'frontend-7d9f8c6b5-x2x7k')) != null

    when: 'the pipeline retries the same batch'
    retry { writer.commit(batch).toCompletableFuture().get(60, TimeUnit.SECONDS) }

    then: 'all of it is there'
    reader.walk('shop').clusters['deployment frontend'].serverGroups['frontend-7d9f8c6b5'].instances ==
        ['frontend-7d9f8c6b5-q9z4m', 'frontend-7d9f8c6b5-new01'] as Set
  }

  def "an object that cannot be cached does not block the batch"() {
    when:
    def broken = new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(++sequence).setKind(kindOf(Manifests.pod()))
        .setNamespace('web').setName('broken').setResourceVersion('1').setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFromUtf8('{not json')).build())
    commit(broken, upsert(Manifests.service(), '1'))

    then:
    reader.all(CacheTypes.SERVICE).size() == 1
    reader.all(CacheTypes.POD).isEmpty()
  }

  def "a body carries the object's JSON text when it already is the cached manifest, and a rebuilt manifest otherwise"() {
    given: 'compact text as Gson writes it, escapes included; pretty-printed text with a null member'
    String asSent = '{"apiVersion":"v1","kind":"Service","metadata":{"name":"as-sent","namespace":"web",' +
        '"annotations":{"moniker.spinnaker.io/application":"shop","note":"a\\u003db"}},"spec":{"ports":[{"port":80}]}}'
    String rebuilt = '{\n  "apiVersion": "v1",\n  "kind": "Service",\n  "metadata": {"name": "rebuilt", "namespace": "web", ' +
        '"annotations": {"moniker.spinnaker.io/application": "shop"}},\n  "spec": {"clusterIP": null, "ports": [{"port": 80}]}\n}'

    when:
    commit(upsertText('as-sent', asSent), upsertText('rebuilt', rebuilt))
    String asSentBody = body(CacheTypes.SERVICE, infra(CacheTypes.SERVICE, 'as-sent'))
    String rebuiltBody = body(CacheTypes.SERVICE, infra(CacheTypes.SERVICE, 'rebuilt'))

    then: 'the text as it came, inside a body that reads as the derived record'
    asSentBody.contains('"manifest":' + asSent + ',"moniker":')
    Manifests.MAPPER.readValue(asSentBody, Map).attributes.manifest == Manifests.MAPPER.readValue(asSent, Map)
    row(CacheTypes.SERVICE, infra(CacheTypes.SERVICE, 'as-sent')).bodyHash == CacheRecord.bodyHash(asSentBody)

    and: 'the manifest made from the tree: null member dropped, compact'
    Manifests.MAPPER.readValue(rebuiltBody, Map).attributes.manifest == [
        apiVersion: 'v1', kind: 'Service',
        metadata  : [name: 'rebuilt', namespace: 'web', annotations: ['moniker.spinnaker.io/application': 'shop']],
        spec      : [ports: [[port: 80]]]]
    !rebuiltBody.contains('null')
    !rebuiltBody.contains('\n')

    and: 'each reads back as the record derived from its parsed object'
    [('as-sent'): asSent, rebuilt: rebuilt].every { name, json ->
      def derived = ManifestCacheRecords.of(ACCOUNT, Manifests.MAPPER.readTree(json), FormatOptions.DEFAULTS).get().infrastructure()
      Manifests.MAPPER.valueToTree(reader.get(CacheTypes.SERVICE, infra(CacheTypes.SERVICE, name)).attributes) ==
          Manifests.MAPPER.valueToTree(derived.attributes())
    }
  }

  def "ignored objects and kinds outside the configured set are not cached"() {
    given:
    writer = newWriter(100, jooq, new CachedKinds(null, ['Ingress'], false))

    when:
    streamListing(application() + [Manifests.ignoredService()])

    then:
    reader.all(CacheTypes.INGRESS).isEmpty()
    reader.all(CacheTypes.SERVICE).keySet() == [infra(CacheTypes.SERVICE, 'frontend')] as Set

    when: 'an object becomes ignored'
    Map svc = Manifests.service()
    svc.metadata.annotations['caching.spinnaker.io/ignore'] = 'true'
    commit(upsert(svc, '5'))

    then:
    reader.all(CacheTypes.SERVICE).isEmpty()
    CatsReader.related(reader.get(CacheTypes.REPLICA_SET, infra(CacheTypes.REPLICA_SET, 'frontend-7d9f8c6b5')), CacheTypes.SERVICE).isEmpty()
  }

  def "the spinagent_objects upsert of any number of rows is jOOQ's, with a placeholder for each of a row's nine values"() {
    given:
    def upsert = new ObjectVersions.UpsertSql(jooq)

    expect:
    [1, 2, 3, 17, 499, 500].every { rows ->
      upsert.sql(rows) == upsert.render(rows) && upsert.sql(rows).count('?') == 9 * rows
    }
  }

  def "per-type tables are created from the templates under the names cats-sql uses"() {
    when:
    streamListing(application())
    List<String> names = cacheTables()

    then: 'unquoted names: PostgreSQL folds them to lower case, as it does for Clouddriver'
    if (db.dialect() == 'POSTGRES') {
      assert names.containsAll(['cats_v1_replicaset', 'cats_v1_replicaset_rel', 'cats_v1_applications', 'cats_v1_clusters_rel'])
      assert names.every { it == it.toLowerCase() }
    } else {
      assert names.containsAll(['cats_v1_replicaSet', 'cats_v1_replicaSet_rel', 'cats_v1_applications', 'cats_v1_clusters_rel'])
    }

    and: '_rel rows: 26-character ULIDs, rel_agent "<forward target type>:<agent>", rel_type the type of rel_id'
    def rows = jooq.fetch("select uuid, rel_id, rel_agent, rel_type from " + writer.tables().relTable(CacheTypes.POD))
    !rows.isEmpty()
    rows.every { r ->
      r.get(0, String) ==~ /[0-9A-HJKMNP-TV-Z]{26}/ &&
          CacheKeys.parse(r.get(1, String)).get().type() == r.get(3, String) &&
          r.get(2, String).endsWith(":$ACCOUNT/SpinAgentCachingAgent")
    }
  }

  def "every row names the account's own agent, which Clouddriver's unknown-agent cleanup would not know"() {
    given: 'SqlUnknownAgentCleanupAgent keeps rows whose agent (rel_agent after its first colon) is a registered caching agent'
    streamListing(application())
    Set<String> registered = ["$ACCOUNT/KubernetesCoreCachingAgent[1/1]".toString()]
    def agentOf = { String relAgent -> relAgent.contains(':') ? relAgent.substring(relAgent.indexOf(':') + 1) : relAgent }

    when:
    Set<String> agents = [] as Set
    cacheTables().each { t ->
      String column = t.toLowerCase().endsWith('_rel') ? 'rel_agent' : 'agent'
      jooq.fetch("select " + column + " from " + t).each { agents << agentOf(it.get(0, String)) }
    }

    then: 'one value, not a Clouddriver agent: the cleanup would delete every row, so it must stay disabled (docs/caching.md)'
    agents == ["$ACCOUNT/SpinAgentCachingAgent".toString()] as Set
    !registered.containsAll(agents)
  }

  def "an id longer than the id column allows is skipped like cats-sql skips it, without failing the batch"() {
    given:
    Map pod = Manifests.pod()
    pod.metadata.name = 'p' * 253
    pod.metadata.namespace = 'n' * 63
    String key = CacheKeys.infrastructure(CacheTypes.POD, ACCOUNT, 'n' * 63, 'p' * 253)

    when:
    commit(upsert(pod, '1'), upsert(Manifests.service(), '1'))

    then:
    reader.all(CacheTypes.SERVICE).size() == 1
    (reader.get(CacheTypes.POD, key) != null) == (db.dialect() == 'POSTGRES') // 352 characters on MySQL
  }

  def "an account that is removed or switched off loses every row, and only its own"() {
    given: 'the account and another account of the same application'
    streamListing(application())
    Map other = Manifests.deployment()
    writer.commit(new SinkBatch('other', [new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(1).setKind(kindOf(other)).setNamespace(other.metadata.namespace as String).setName(other.metadata.name as String)
        .setResourceVersion('1').setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFromUtf8(Manifests.MAPPER.writeValueAsString(other))).build())])).toCompletableFuture().get(60, TimeUnit.SECONDS)
    int otherRows = reader.all(CacheTypes.DEPLOYMENT).keySet().count { it.contains(':other:') }

    when:
    writer.onStateChange(new AgentAccount(ACCOUNT, null, state, clock.instant(), null, [], null, null), AccountState.ACTIVE)

    then: "nothing of the account is left; the other account and the application it shares are untouched"
    new PollingConditions(timeout: 30).eventually {
      assert jooq.fetchCount(DSL.table(DSL.unquotedName('spinagent_objects')), DSL.field('account').eq(ACCOUNT)) == 0
      assert reader.all(CacheTypes.POD).isEmpty()
    }
    otherRows == 1
    reader.all(CacheTypes.REPLICA_SET).isEmpty()
    reader.all(CacheTypes.SERVICE).isEmpty()
    reader.all(CacheTypes.DEPLOYMENT).keySet().every { it.contains(':other:') }
    reader.all(CacheTypes.DEPLOYMENT).size() == 1
    reader.all(CacheTypes.CLUSTERS).keySet().every { it.contains(':other:') }
    reader.get(CacheTypes.APPLICATIONS, CacheKeys.application('shop')) != null

    where:
    state << [AccountState.REMOVED, AccountState.INACTIVE]
  }

  def "our own tables are migrated with our own Liquibase changelog tables"() {
    expect:
    List<String> tables = jooq.fetch("select lower(table_name) from information_schema.tables where " +
        (db.dialect() == 'POSTGRES' ? "table_schema = current_schema()" : "table_schema = database()")).collect { it.get(0, String) }
    tables.containsAll(['spinagent_objects', 'spinagent_resume_points', 'spinagent_accounts', 'spinagent_operations', 'spinagent_databasechangelog'])
    !tables.contains('databasechangelog')
    !tables.contains('databasechangeloglock')
    // one row per changeSet of our changelog meant for this database, whichever were added since
    jooq.fetch("select id from spinagent_databasechangelog").collect { it.get(0, String) } as Set ==
        changeSetIds(db.dialect() == 'POSTGRES' ? 'postgresql' : 'mysql')
  }

  /** The ids of our changelog's changeSets that Liquibase runs on {@code dbms}. */
  private Set<String> changeSetIds(String dbms) {
    Map changelog = new org.yaml.snakeyaml.Yaml().load(getClass().classLoader.getResource(SpinAgentSchema.CHANGELOG).text)
    changelog.databaseChangeLog*.changeSet.findAll { it.dbms == null || it.dbms == dbms }*.id as Set
  }
}
