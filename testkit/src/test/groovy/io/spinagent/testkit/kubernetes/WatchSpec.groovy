package io.spinagent.testkit.kubernetes

import com.google.gson.reflect.TypeToken
import io.kubernetes.client.openapi.ApiClient
import io.kubernetes.client.openapi.apis.CoreV1Api
import io.kubernetes.client.openapi.models.V1ConfigMap
import io.kubernetes.client.openapi.models.V1Namespace
import io.kubernetes.client.openapi.models.V1ObjectMeta
import io.kubernetes.client.util.Watch
import java.time.Duration
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import spock.lang.Shared

class WatchSpec extends ApiServerSpecification {

  @Shared CoreV1Api core

  @Override
  KubernetesApiServer.Builder newServer() {
    KubernetesApiServer.builder().bookmarkInterval(Duration.ofMillis(200))
  }

  def setupSpec() {
    core = new CoreV1Api(client())
  }

  private String namespace(String name) {
    core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name))).execute()
    name
  }

  private V1ConfigMap cm(String ns, String name, Map labels = [:]) {
    core.createNamespacedConfigMap(ns, new V1ConfigMap().metadata(new V1ObjectMeta().name(name).labels(labels))
        .data([v: '1'])).execute()
  }

  /** Opens a watch with the official client and pumps its events into a queue from a background thread. */
  private WatchFeed watch(String ns, Map options = [:]) {
    watch(core.apiClient, ns, options)
  }

  private WatchFeed watch(ApiClient client, String ns, Map options) {
    def request = new CoreV1Api(client).listNamespacedConfigMap(ns).watch(true)
    if (options.resourceVersion != null) request.resourceVersion(options.resourceVersion as String)
    if (options.labelSelector) request.labelSelector(options.labelSelector as String)
    if (options.timeoutSeconds) request.timeoutSeconds(options.timeoutSeconds as Integer)
    if (options.bookmarks) request.allowWatchBookmarks(true)
    if (options.sendInitialEvents) request.sendInitialEvents(true).resourceVersionMatch('NotOlderThan')
    Watch<V1ConfigMap> watch = Watch.createWatch(client, request.buildCall(null),
        TypeToken.getParameterized(Watch.Response, V1ConfigMap).type)
    new WatchFeed(watch)
  }

  static class WatchFeed implements Closeable {
    final Watch<V1ConfigMap> watch
    final LinkedBlockingQueue<Watch.Response<V1ConfigMap>> events = new LinkedBlockingQueue<>()
    volatile boolean ended
    final Thread pump

    WatchFeed(Watch<V1ConfigMap> watch) {
      this.watch = watch
      pump = Thread.start {
        try {
          while (watch.hasNext()) {
            events.add(watch.next())
          }
        } catch (ignored) {
        } finally {
          ended = true
        }
      }
    }

    Watch.Response<V1ConfigMap> next(long millis = 5000) {
      events.poll(millis, TimeUnit.MILLISECONDS)
    }

    /** The next n events that are not bookmarks. */
    List<Watch.Response<V1ConfigMap>> take(int n) {
      def taken = []
      while (taken.size() < n) {
        def event = next()
        assert event != null: "expected ${n} events, got ${taken.collect { it.type + ' ' + it.object?.metadata?.name }}"
        if (event.type != 'BOOKMARK') {
          taken << event
        }
      }
      taken
    }

    /** Nothing but bookmarks arrives within the given time. */
    boolean quiet(long millis = 500) {
      long deadline = System.currentTimeMillis() + millis
      while (System.currentTimeMillis() < deadline) {
        def event = next(Math.max(1, deadline - System.currentTimeMillis()))
        if (event != null && event.type != 'BOOKMARK') {
          return false
        }
      }
      true
    }

    void close() {
      watch.close()
    }
  }

  def "a watch from a resourceVersion gets exactly the later events, in order, never earlier ones"() {
    given:
    def ns = namespace('watch-from')
    def a = cm(ns, 'a')
    cm(ns, 'b')
    def listed = core.listNamespacedConfigMap(ns).execute()

    when:
    def feed = watch(ns, [resourceVersion: listed.metadata.resourceVersion])
    cm(ns, 'c')
    a.data([v: '2'])
    core.replaceNamespacedConfigMap('a', ns, a).execute()
    def lastB = core.readNamespacedConfigMap('b', ns).execute()
    core.deleteNamespacedConfigMap('b', ns).execute()
    def events = feed.take(3)

    then:
    events*.type == ['ADDED', 'MODIFIED', 'DELETED']
    events*.object*.metadata*.name == ['c', 'a', 'b']
    events*.object*.metadata*.resourceVersion.collect { it as long } ==
        events*.object*.metadata*.resourceVersion.collect { it as long }.sort()
    events[0].object.metadata.resourceVersion as long > listed.metadata.resourceVersion as long
    // A deletion is a change of its own, with its own resourceVersion.
    events[2].object.metadata.resourceVersion as long > lastB.metadata.resourceVersion as long
    feed.quiet()

    cleanup:
    feed?.close()
  }

  def "a watch from the newest resourceVersion replays nothing; one from an older version resumes exactly"() {
    given:
    def ns = namespace('watch-resume')
    cm(ns, 'one')
    def middle = server.resourceVersion()
    cm(ns, 'two')
    def newest = server.resourceVersion()

    when:
    def fromNewest = watch(ns, [resourceVersion: newest])
    def fromMiddle = watch(ns, [resourceVersion: middle])

    then:
    fromNewest.quiet()
    fromMiddle.take(1)*.object*.metadata*.name == ['two']
    fromMiddle.quiet()

    cleanup:
    fromNewest?.close()
    fromMiddle?.close()
  }

  def "a watch without resourceVersion starts with synthetic ADDED events for what exists"() {
    given:
    def ns = namespace('watch-initial')
    cm(ns, 'x')
    cm(ns, 'y')

    when:
    def feed = watch(ns)
    def initial = feed.take(2)
    cm(ns, 'z')

    then:
    initial*.type == ['ADDED', 'ADDED']
    initial*.object*.metadata*.name == ['x', 'y']
    feed.take(1)*.object*.metadata*.name == ['z']

    cleanup:
    feed?.close()
  }

  def "sendInitialEvents ends the initial state with an annotated bookmark"() {
    given:
    def ns = namespace('watch-list')
    cm(ns, 'only')

    when:
    def feed = watch(ns, [sendInitialEvents: true, bookmarks: true])
    def first = feed.next()
    def second = feed.next()

    then:
    first.type == 'ADDED'
    second.type == 'BOOKMARK'
    second.object.metadata.annotations == ['k8s.io/initial-events-end': 'true']

    cleanup:
    feed?.close()
  }

  def "timeoutSeconds closes the stream"() {
    given:
    def ns = namespace('watch-timeout')

    when:
    def started = System.currentTimeMillis()
    def feed = watch(ns, [resourceVersion: server.resourceVersion(), timeoutSeconds: 1])
    eventually(5000) { feed.ended }

    then:
    feed.ended
    System.currentTimeMillis() - started >= 900

    cleanup:
    feed?.close()
  }

  def "bookmarks carry a resourceVersion a client can resume from"() {
    given:
    def ns = namespace('watch-bookmarks')
    def feed = watch(ns, [resourceVersion: server.resourceVersion(), bookmarks: true])
    cm('default', 'bookmark-elsewhere')
    def target = server.resourceVersion()

    when:
    def bookmark = null
    eventually(3000) {
      def event = feed.next(100)
      if (event?.type == 'BOOKMARK' && (event.object.metadata.resourceVersion as long) >= target) {
        bookmark = event
      }
      bookmark != null
    }

    then:
    bookmark != null
    bookmark.object.kind == 'ConfigMap'

    when: "resuming from the bookmark's version replays nothing"
    def resumed = watch(ns, [resourceVersion: bookmark.object.metadata.resourceVersion])

    then:
    resumed.quiet()

    cleanup:
    feed?.close()
    resumed?.close()
  }

  def "a label selector watch turns label changes into ADDED and DELETED"() {
    given:
    def ns = namespace('watch-selector')
    def obj = cm(ns, 'flip', [team: 'red'])
    def feed = watch(ns, [resourceVersion: server.resourceVersion(), labelSelector: 'team=blue'])

    when:
    obj = core.replaceNamespacedConfigMap('flip', ns, obj.metadata(obj.metadata.labels([team: 'blue']))).execute()
    obj = core.replaceNamespacedConfigMap('flip', ns, obj.data([v: '2'])).execute()
    core.replaceNamespacedConfigMap('flip', ns, obj.metadata(obj.metadata.labels([team: 'green']))).execute()

    then:
    feed.take(3).collect { it.type + ' ' + it.object.metadata.labels.team } ==
        ['ADDED blue', 'MODIFIED blue', 'DELETED green']

    cleanup:
    feed?.close()
  }

  def "after a compaction, a watch from an older resourceVersion gets a 410 Expired ERROR event"() {
    given:
    def ns = namespace('watch-expired')
    cm(ns, 'before')
    def old = core.listNamespacedConfigMap(ns).execute().metadata.resourceVersion
    cm(ns, 'after')
    server.compact()

    when:
    def feed = watch(ns, [resourceVersion: old])
    def event = feed.next()

    then:
    event.type == 'ERROR'
    event.status.code == 410
    event.status.reason == 'Expired'
    event.status.message.startsWith('too old resource version')
    eventually { feed.ended }
    server.requestLog().entries().any { it.watchExpired() && it.uri().contains('watch=true') }

    and: "the current resourceVersion is still good to watch from"
    def current = watch(ns, [resourceVersion: server.resourceVersion()])
    current.quiet(300)

    cleanup:
    feed?.close()
    current?.close()
  }

  def "the history window is bounded by eventHistoryLimit"() {
    given:
    def small = startServer(KubernetesApiServer.builder().http().eventHistoryLimit(5))
    def client = client(small)
    def api = new CoreV1Api(client)
    def start = small.resourceVersion()
    (1..10).each { api.createNamespacedConfigMap('default', new V1ConfigMap().metadata(new V1ObjectMeta().name("h$it"))).execute() }

    when:
    def tooOld = watch(client, 'default', [resourceVersion: start])
    def recent = watch(client, 'default', [resourceVersion: small.resourceVersion() - 3])

    then:
    tooOld.next().status.code == 410
    recent.take(3)*.object*.metadata*.name == ['h8', 'h9', 'h10']

    cleanup:
    tooOld?.close()
    recent?.close()
  }

  def "watches resume across an API server restart on the same port, without replay"() {
    given:
    def restartable = startServer(KubernetesApiServer.builder())
    def client = client(restartable)
    def api = new CoreV1Api(client)
    def port = restartable.port()
    api.createNamespacedConfigMap('default', new V1ConfigMap().metadata(new V1ObjectMeta().name('r1'))).execute()
    def feed = watch(client, 'default', [resourceVersion: restartable.resourceVersion()])
    api.createNamespacedConfigMap('default', new V1ConfigMap().metadata(new V1ObjectMeta().name('r2'))).execute()
    def seen = feed.take(1)[0].object.metadata.resourceVersion

    when: "the server goes down, the store changes meanwhile, and the server comes back"
    restartable.stop()
    eventually { feed.ended }
    restartable.createObject('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"r3"}}')
    restartable.start()
    def resumed = watch(client, 'default', [resourceVersion: seen])

    then:
    restartable.port() == port
    feed.ended
    resumed.take(1)*.object*.metadata*.name == ['r3']
    resumed.quiet()

    cleanup:
    feed?.close()
    resumed?.close()
  }

  def "the legacy /watch/ path and single-object watches work"() {
    given:
    def ns = namespace('watch-legacy')
    cm(ns, 'one')
    cm(ns, 'two')
    def rv = server.resourceVersion()

    when:
    def call = core.apiClient.httpClient.newCall(new okhttp3.Request.Builder()
        .url(core.apiClient.basePath + "/api/v1/watch/namespaces/$ns/configmaps/two?resourceVersion=$rv&timeoutSeconds=2")
        .build())
    def response = call.execute()
    core.replaceNamespacedConfigMap('one', ns, core.readNamespacedConfigMap('one', ns).execute().data([v: 'x'])).execute()
    core.replaceNamespacedConfigMap('two', ns, core.readNamespacedConfigMap('two', ns).execute().data([v: 'y'])).execute()
    def lines = response.body().string().readLines()

    then:
    response.code() == 200
    lines.size() == 1
    parse(lines[0]).type == 'MODIFIED'
    parse(lines[0]).object.metadata.name == 'two'

    cleanup:
    response?.close()
  }
}
