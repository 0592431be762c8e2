package io.spinagent.plugin.cache.sql

import static io.spinagent.plugin.cache.format.Manifests.ACCOUNT
import static io.spinagent.plugin.cache.format.Manifests.NS
import static io.spinagent.plugin.cache.format.Manifests.infra

import com.google.protobuf.ByteString
import io.spinagent.plugin.accounts.AccountState
import io.spinagent.plugin.accounts.AgentAccount
import io.spinagent.plugin.cache.CommitOutcome
import io.spinagent.plugin.cache.SinkBatch
import io.spinagent.plugin.cache.SinkEntry
import io.spinagent.plugin.cache.format.CacheKeys
import io.spinagent.plugin.cache.format.CacheTypes
import io.spinagent.plugin.cache.format.Manifests
import io.spinagent.protocol.v1.ChangeType
import io.spinagent.protocol.v1.ObjectChange
import io.spinagent.protocol.v1.WatchProgress
import java.sql.Connection
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import org.jooq.impl.DSL
import spock.util.concurrent.PollingConditions

/**
 * What the writer does for a fleet, against a real database: batches of many accounts in one
 * transaction, a listing that finds nothing changed, listings whose beginning this process did
 * not see, resume points, refused changes, and the tables Clouddriver's search needs.
 *
 * <p>To put batches of many accounts in one transaction, the spec holds a row lock that the first
 * batch's transaction needs, hands the others over while it waits (the writer has one committer),
 * and lets go: the waiting transaction holds the first batch and whatever was queued when it
 * started, and the next one takes all the rest.
 */
abstract class SqlWriterFleetSpecification extends SqlWriterFixture {

  SinkEntry progress(Map sample, String rv) {
    new SinkEntry.Progress(WatchProgress.newBuilder().setKind(kindOf(sample)).setResourceVersion(rv).setSequence(++sequence).build())
  }

  static <T> T await(CompletionStage<T> stage) {
    stage.toCompletableFuture().get(60, TimeUnit.SECONDS)
  }

  /** Rows per table: every cats table, spinagent_objects and spinagent_resume_points. */
  Map<String, Integer> rowCounts() {
    (cacheTables() + ['spinagent_objects', 'spinagent_resume_points']).collectEntries { [(it): countRows(it)] }
  }

  /** Rows of the cats tables and spinagent_objects written after {@code millis}. */
  int rowsWrittenAfter(long millis) {
    (cacheTables() + ['spinagent_objects']).sum { t ->
      jooq.fetchCount(DSL.table(DSL.unquotedName(t)), DSL.field(DSL.unquotedName('last_updated')).gt(millis))
    } as int
  }

  double rowsCounted() {
    meters.find('spinagent.cache.rows').counters().sum { it.count() } as Double ?: 0
  }

  /**
   * Hands over a batch whose transaction waits for a lock on the account's Service row in
   * spinagent_objects, which the returned connection holds until it rolls back.
   */
  Connection lockedFirstBatch(List<CompletionStage<CommitOutcome>> into) {
    Connection locker = db.dataSource().getConnection()
    locker.autoCommit = false
    locker.createStatement().executeQuery(
        "select resource_version from spinagent_objects where account = '$ACCOUNT' and kind = 'Service' and name = 'frontend' for update")
    into << writer.commit(new SinkBatch(ACCOUNT, [upsert(Manifests.service(), '2')]))
    locker
  }

  static Map deployment(int replicas) {
    Map d = Manifests.deployment()
    d.spec.replicas = replicas
    d
  }

  def "batches of many accounts share one transaction, each acknowledged with its own outcome, each account's changes in order"() {
    given:
    streamListing(application())
    def groups = meters.summary('spinagent.cache.group.batches')
    long transactionsBefore = groups.count()
    List<CompletionStage<CommitOutcome>> first = []
    Connection locker = lockedFirstBatch(first)

    when: '20 accounts hand over a batch meanwhile, each changing its deployment twice; then the lock goes'
    def accounts = (1..20).collect { "fleet-$it".toString() }
    Map<String, CompletionStage<CommitOutcome>> handedOver = accounts.collectEntries { a ->
      [(a): writer.commit(new SinkBatch(a, [upsert(deployment(2), '2'), upsert(deployment(3), '3'), upsert(Manifests.replicaSet(), '3')]))]
    }
    locker.rollback()
    locker.close()
    await(first[0])
    Map<String, CommitOutcome> outcomes = handedOver.collectEntries { a, stage -> [(a): await(stage)] }

    then: 'the 21 batches went into two transactions: the one that waited (with whatever it took), and the next'
    groups.count() - transactionsBefore <= 2
    groups.max() >= 11

    and: "each account's stage completed with its own outcome, and its rows are its last change's"
    outcomes.values().every { it.refused().isEmpty() && it.relistRequired().isEmpty() }
    accounts.every { a ->
      Map d = reader.get(CacheTypes.DEPLOYMENT, CacheKeys.infrastructure(CacheTypes.DEPLOYMENT, a, NS, 'frontend'))
      d.attributes.manifest.spec.replicas == 3 &&
          jooq.fetchValue("select resource_version from spinagent_objects where account = ? and kind = 'Deployment'", a) == '3'
    }

    and: "each account has its own cluster row, its own application body row, and its own links in the shared application's rows"
    reader.all(CacheTypes.CLUSTERS).keySet().containsAll(accounts.collect { CacheKeys.cluster(it, 'shop', 'deployment frontend') })
    jooq.fetchCount(DSL.table(DSL.unquotedName(writer.tables().resourceTable(CacheTypes.APPLICATIONS)))) == accounts.size() + 1
    CatsReader.related(reader.get(CacheTypes.APPLICATIONS, CacheKeys.application('shop')), CacheTypes.DEPLOYMENT) ==
        (accounts + [ACCOUNT]).collect { CacheKeys.infrastructure(CacheTypes.DEPLOYMENT, it, NS, 'frontend') } as Set

    when: 'each account then sends two more batches, one after the other, as its pipeline does'
    def chains = accounts.collect { a ->
      CompletableFuture<?> chain = CompletableFuture.completedFuture(null)
      [4, 5].each { rv -> chain = chain.thenCompose { writer.commit(new SinkBatch(a, [upsert(deployment(rv), "$rv")])) } }
      chain
    }
    chains.each { await(it) }

    then:
    accounts.every { a ->
      reader.get(CacheTypes.DEPLOYMENT, CacheKeys.infrastructure(CacheTypes.DEPLOYMENT, a, NS, 'frontend')).attributes.manifest.spec.replicas == 5
    }
  }

  def "a batch whose rows the database refuses fails alone: the other accounts in its transaction commit"() {
    given: 'a database that refuses the rows of account "broken"'
    streamListing(application())
    jooq.execute("alter table spinagent_objects add constraint spec_refuses_broken check (account <> 'broken')")
    List<CompletionStage<CommitOutcome>> first = []
    Connection locker = lockedFirstBatch(first)

    when: 'five accounts, one of them "broken", hand over a batch while the first transaction waits'
    def accounts = ['a', 'b', 'broken', 'c', 'd']
    Map<String, CompletionStage<CommitOutcome>> handedOver = accounts.collectEntries { a ->
      [(a): writer.commit(new SinkBatch(a, [upsert(Manifests.deployment(), '1'), upsert(Manifests.replicaSet(), '1')]))]
    }
    locker.rollback()
    locker.close()
    await(first[0])
    ['a', 'b', 'c', 'd'].each { await(handedOver[it]) }
    await(handedOver.broken)

    then: "the broken account's stage fails, so its pipeline keeps the batch and retries it"
    thrown(ExecutionException)

    and: 'the others committed all of their rows; nothing of the broken account is there'
    meters.counter('spinagent.cache.group.splits').count() >= 1
    ['a', 'b', 'c', 'd'].every { a ->
      reader.get(CacheTypes.REPLICA_SET, CacheKeys.infrastructure(CacheTypes.REPLICA_SET, a, NS, 'frontend-7d9f8c6b5')) != null &&
          reader.get(CacheTypes.CLUSTERS, CacheKeys.cluster(a, 'shop', 'deployment frontend')) != null
    }
    reader.all(CacheTypes.DEPLOYMENT).keySet().every { !it.contains(':broken:') }
    jooq.fetchCount(DSL.table(DSL.unquotedName('spinagent_objects')), DSL.field(DSL.unquotedName('account')).eq('broken')) == 0

    cleanup:
    jooq.execute('alter table spinagent_objects drop constraint spec_refuses_broken')
  }

  def "a listing that finds nothing changed writes nothing (#when)"() {
    given:
    streamListing(application())
    long listedAt = clock.millis()
    Map<String, Integer> counts = rowCounts()
    def walk = reader.walk('shop')
    if (restart) {
      writer = newWriter()
    }
    clock.advance(60_000)
    double counted = rowsCounted()

    when: 'the agent lists every kind again, every object at the resourceVersion the cache holds'
    streamListing(application())

    then: 'no row of any table was written or deleted'
    rowsWrittenAfter(listedAt) == 0
    rowCounts() == counts
    rowsCounted() == counted
    meters.counter('spinagent.cache.changes.unchanged').count() == application().size()

    and: 'the cache reads as before'
    reader.walk('shop') == walk

    when: 'a listing in which one pod changed'
    Map pod = Manifests.pod()
    pod.status.phase = 'Succeeded'
    commit(begin(pod, 'changed'), upsert(pod, '2'), upsert(pod2(), '1'), end(pod, 'changed'))

    then: "that pod's rows alone are written"
    [writer.tables().resourceTable(CacheTypes.POD), 'spinagent_objects'].every { t ->
      jooq.fetch("select * from " + t + " where last_updated > ?", listedAt).size() == 1
    }
    writer.tables().relTable(CacheTypes.POD).with { t -> jooq.fetchCount(DSL.table(DSL.unquotedName(t)), DSL.field(DSL.unquotedName('last_updated')).gt(listedAt)) } == 0

    where:
    when                                        | restart
    'the same process'                          | false
    'after a restart, rebuilding its index'     | true
  }

  def "after a restart, changes of an account that is not listed again keep the relationships to objects this process has not seen"() {
    given: 'the application listed; then a restart, after which the agent resumes its watches and lists nothing'
    streamListing(application())
    def walk = reader.walk('shop')
    writer = newWriter()
    def rsKey = infra(CacheTypes.REPLICA_SET, 'frontend-7d9f8c6b5')
    def svcKey = infra(CacheTypes.SERVICE, 'frontend')

    when: 'the replicaSet and the service change'
    Map rs = Manifests.replicaSet()
    rs.status = [replicas: 2, readyReplicas: 2]
    Map svc = Manifests.service()
    svc.metadata.labels = [tier: 'web']
    commit(upsert(rs, '2'), upsert(svc, '2'))

    then: 'their relationships to the pods, the deployment, each other and the ingress are all there'
    CatsReader.related(reader.get(CacheTypes.REPLICA_SET, rsKey), CacheTypes.POD) ==
        [infra(CacheTypes.POD, 'frontend-7d9f8c6b5-x2x7k'), infra(CacheTypes.POD, 'frontend-7d9f8c6b5-q9z4m')] as Set
    CatsReader.related(reader.get(CacheTypes.REPLICA_SET, rsKey), CacheTypes.SERVICE) == [svcKey] as Set
    CatsReader.related(reader.get(CacheTypes.SERVICE, svcKey), CacheTypes.INGRESS) == [infra(CacheTypes.INGRESS, 'shop')] as Set
    reader.walk('shop') == walk
  }

  def "an END whose BEGIN this process did not see sweeps nothing and asks for the kind to be listed again"() {
    given: 'pods listed, and their progress stored as a resume point'
    streamListing(application())
    commit(progress(Manifests.pod(), '50'))
    assert writer.resumePoints().of([ACCOUNT])[ACCOUNT]*.resourceVersion == ['50']

    when: "after a restart, the end of a listing whose beginning reached the process before"
    writer = newWriter()
    def outcome = commit(upsert(pod2(), '2'), end(Manifests.pod(), 'listing-Pod-1'))

    then: 'nothing is swept, the kind is to be listed again, and its resume point is gone'
    outcome.relistRequired() == [kindOf(Manifests.pod())]
    reader.all(CacheTypes.POD).size() == 2
    writer.resumePoints().of([ACCOUNT]).isEmpty()

    when: 'its progress is no resume point until a listing has swept the kind'
    commit(progress(Manifests.pod(), '60'))

    then:
    writer.resumePoints().of([ACCOUNT]).isEmpty()

    when: 'a complete listing of the kind, naming one pod, then progress'
    commit(begin(Manifests.pod(), 'again'), upsert(pod2(), '3'), end(Manifests.pod(), 'again'), progress(Manifests.pod(), '70'))

    then:
    reader.all(CacheTypes.POD).keySet() == [infra(CacheTypes.POD, 'frontend-7d9f8c6b5-q9z4m')] as Set
    writer.resumePoints().of([ACCOUNT])[ACCOUNT]*.resourceVersion == ['70']
  }

  def "a claim drops the listings in progress: their END asks for a new listing rather than sweep"() {
    given:
    streamListing(application())
    commit(begin(Manifests.pod(), 'r2'), upsert(pod2(), '2'))

    when: 'the account is claimed again (another replica may have written meanwhile)'
    writer.onStateChange(new AgentAccount(ACCOUNT, null, AccountState.ACTIVATING, clock.instant(), null, [], null, null), AccountState.ORPHANED)
    def outcome = commit(end(Manifests.pod(), 'r2'))

    then:
    outcome.relistRequired() == [kindOf(Manifests.pod())]
    reader.all(CacheTypes.POD).size() == 2
  }

  def "progress becomes its kind's resume point, read back for many accounts in one query, and goes with the account's rows"() {
    when:
    commit(progress(Manifests.pod(), '10'), progress(Manifests.service(), '11'), progress(Manifests.pod(), '12'))
    await(writer.commit(new SinkBatch('other', [progress(Manifests.deployment(), '5')])))
    def points = writer.resumePoints().of([ACCOUNT, 'other', 'unknown'])

    then:
    points.keySet() == [ACCOUNT, 'other'] as Set
    points[ACCOUNT].collectEntries { [(it.kind.kind): it.resourceVersion] } == [Pod: '12', Service: '11']
    points[ACCOUNT].every { it.committedAtMillis == clock.millis() }
    points[ACCOUNT].find { it.kind.kind == 'Pod' }.kind == kindOf(Manifests.pod())
    points.other*.kind == [kindOf(Manifests.deployment())]

    when: 'the account is removed'
    writer.onStateChange(new AgentAccount(ACCOUNT, null, AccountState.REMOVED, clock.instant(), null, [], null, null), AccountState.ACTIVE)

    then:
    new PollingConditions(timeout: 30).eventually {
      assert writer.resumePoints().of([ACCOUNT]).isEmpty()
    }
    writer.resumePoints().of(['other']).keySet() == ['other'] as Set
  }

  SinkEntry change(String name, String json) {
    new SinkEntry.Change(ObjectChange.newBuilder()
        .setSequence(++sequence).setKind(kindOf(Manifests.service()))
        .setNamespace(NS).setName(name).setResourceVersion('1').setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFromUtf8(json)).build())
  }

  def "changes that cannot be stored are reported with the commit and counted, their reasons never quoting them"() {
    given:
    String longName = 'n' * 254

    when:
    def outcome = commit(
        change('broken', '{"apiVersion":"v1","kind":"Service","metadata":{"name":"broken"},"data":"hunter2'),
        change('no-kind', '{"apiVersion":"v1","metadata":{"name":"no-kind","namespace":"web"}}'),
        change('alias', Manifests.MAPPER.writeValueAsString(Manifests.service())),
        change(longName, '{}'),
        upsert(Manifests.service(), '1'))

    then: 'each refused change, with its sequence and a reason'
    outcome.refused()*.name == ['broken', 'no-kind', 'alias', longName]
    outcome.refused()*.sequence == [1L, 2L, 3L, 4L]
    outcome.refused().every { it.kind == kindOf(Manifests.service()) && it.namespace == NS && !it.reason.isEmpty() }
    outcome.refused()*.reason.every { !it.contains('hunter2') }
    outcome.refused()[2].reason.contains(infra(CacheTypes.SERVICE, 'frontend'))

    and: 'only the good change is stored'
    reader.all(CacheTypes.SERVICE).keySet() == [infra(CacheTypes.SERVICE, 'frontend')] as Set

    and:
    ['unreadable_json', 'malformed', 'names_another_object', 'too_long'].every { reason ->
      meters.counter('spinagent.cache.changes.refused', 'reason', reason).count() == 1
    }
  }

  def "at start-up, the tables of every kind Clouddriver's Kubernetes provider caches exist, made from the templates"() {
    given: "no cache table but the templates, and the start-up work the plugin runs in its DATABASE phase"
    cacheTables().findAll { !it.toLowerCase().endsWith('_template') }.each { jooq.execute("drop table " + it) }
    def atStart = new CacheTablesStartup(writer.tables())

    when:
    atStart.start()
    Set<String> tables = cacheTables() as Set

    then: 'under the names cats-sql gives them (PostgreSQL folds them to lower case)'
    atStart.running
    CacheTypes.CLOUDDRIVER_TYPES.every { type ->
      [writer.tables().resourceTable(type), writer.tables().relTable(type)].every { name ->
        tables.contains(db.dialect() == 'POSTGRES' ? name.toLowerCase() : name)
      }
    }

    and: "with the templates' columns"
    columns(writer.tables().resourceTable(CacheTypes.NONE)) == columns('cats_v1_resource_template')
    columns(writer.tables().relTable('horizontalpodautoscaler')) == columns('cats_v1_rel_template')
  }

  List<String> columns(String table) {
    String schema = db.dialect() == 'POSTGRES' ? 'current_schema()' : 'database()'
    jooq.fetch("select column_name, data_type from information_schema.columns where table_schema = " + schema +
        " and table_name = ? order by column_name", db.dialect() == 'POSTGRES' ? table.toLowerCase() : table)
        .collect { "${it.get(0)} ${it.get(1)}".toString() }
  }
}
