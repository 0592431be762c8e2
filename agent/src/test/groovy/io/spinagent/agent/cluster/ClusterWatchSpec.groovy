package io.spinagent.agent.cluster

import io.spinagent.agent.config.CustomResourceConfig
import io.spinagent.agent.config.KubernetesAccountConfig
import io.spinagent.agent.stream.OutboxEntry
import io.spinagent.protocol.v1.CustomResource
import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.testkit.kubernetes.AccessControl
import io.spinagent.testkit.kubernetes.KubernetesApiServer

import java.time.Duration

/** The cluster side against the Kubernetes API test server: what reaches the outbox, and when. */
class ClusterWatchSpec extends ClusterSpecification {

  static final String CRD = '''{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"gadgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}'''

  static String gadget(String name, int size) {
    """{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"$name","namespace":"default"},"spec":{"size":$size}}"""
  }

  def "Deployments and Pods: the first listing goes out between markers, then every add, update and delete"() {
    given:
    def api = server()
    api.createObject(deployment('before'))
    api.createObject(pod('p-before'))
    def manager = watch([account('prod', kubeconfig(api))])

    expect: "an initial listing per default kind, bracketed by BEGIN and END"
    eventually { manager.allSynced() }
    resyncedKinds('prod').containsAll(['Deployment', 'Pod', 'Namespace', 'Service', 'ReplicaSet',
                                       'CustomResourceDefinition'])
    names('prod', 'Deployment') == ['default/before'] as Set
    names('prod', 'Pod') == ['default/p-before'] as Set

    and: "managedFields are stripped"
    state('prod', 'Deployment')['Deployment default/before'].metadata.managedFields == null
    state('prod', 'Deployment')['Deployment default/before'].metadata.labels == [app: 'before']

    and: "the account is announced with its cluster identity and kinds"
    def info = announcements.last().find { it.name == 'prod' }
    info.cluster.apiServerHost == "127.0.0.1:${api.port()}".toString()
    info.cluster.kubernetesVersion == 'v1.29.4'
    info.cluster.caFingerprintSha256 ==~ /[0-9a-f]{64}/
    info.kindsList*.kind.containsAll(['Deployment', 'Pod'])
    !info.kindsList*.kind.contains('Secret')
    !info.kindsList*.kind.contains('ConfigMap')

    when:
    api.createObject(deployment('web'))
    api.createObject(pod('p1'))
    api.mergePatchObject('apps/v1', 'Deployment', 'default', 'web', '{"spec":{"replicas":3}}')

    then:
    eventually { state('prod', 'Deployment')['Deployment default/web']?.spec?.replicas == 3 }
    // each kind has its own watch: the Pod's event need not arrive before the Deployment's
    eventually { names('prod', 'Pod') == ['default/p-before', 'default/p1'] as Set }

    when:
    api.deleteObject('apps/v1', 'Deployment', 'default', 'web')
    api.deleteObject('v1', 'Pod', 'default', 'p-before')

    then:
    eventually { names('prod', 'Deployment') == ['default/before'] as Set && names('prod', 'Pod') == ['default/p1'] as Set }
  }

  def "a CRD created while running is discovered, and its custom resources are watched"() {
    given:
    def api = server()
    def manager = watch([account('prod', kubeconfig(api))])
    assert eventually { manager.allSynced() }

    when:
    api.createObject(CRD)

    then: "the CRD itself goes out, and its kind is watched once discovery sees it"
    eventually { names('prod', 'CustomResourceDefinition').contains('gadgets.example.com') }
    eventually { manager.status('prod').get().watchedKinds().contains('Gadget.example.com') && manager.allSynced() }
    eventually { announcements.last().find { it.name == 'prod' }.kindsList*.kind.contains('Gadget') }

    when:
    api.createObject(gadget('g1', 1))
    api.createObject(gadget('g2', 1))
    api.mergePatchObject('example.com/v1', 'Gadget', 'default', 'g1', '{"spec":{"size":7}}')
    api.deleteObject('example.com/v1', 'Gadget', 'default', 'g2')

    then:
    eventually { state('prod', 'Gadget')['Gadget default/g1']?.spec?.size == 7 && names('prod', 'Gadget') == ['default/g1'] as Set }
    resyncedKinds('prod').contains('Gadget')

    when: "the CRD goes away"
    api.deleteObject('apiextensions.k8s.io/v1', 'CustomResourceDefinition', null, 'gadgets.example.com')

    then: "its kind is no longer watched, and Clouddriver is told"
    eventually { !manager.status('prod').get().watchedKinds().contains('Gadget.example.com') }
    eventually { !announcements.last().find { it.name == 'prod' }.kindsList*.kind.contains('Gadget') }
  }

  def "custom resources limited by kinds are watched, and announced with metrics for the account's Clouddriver definition"() {
    given: 'an account of Deployments and one custom resource, with metrics off; another saying nothing of either'
    def api = server()
    api.createObject(CRD)
    api.createObject(gadget('g1', 1))
    def base = account('prod', kubeconfig(api), kinds: ['Deployment'])
    def prod = new KubernetesAccountConfig(base.name(), base.kubeconfigFile(), base.kubeconfigContents(),
        base.serviceAccount(), base.context(), base.insecure(), base.namespaces(), base.omitNamespaces(),
        ['Deployment', 'Gadget.example.com'], base.omitKinds(), false, false, base.permissions(),
        base.maxResumableResourceAge(), false, Optional.of(false),
        [new CustomResourceConfig('Gadget.example.com', Optional.of('serverGroups'), Optional.of('100'),
            Optional.of(true), Optional.empty())])

    when:
    def manager = watch([prod, account('staging', kubeconfig(api))])

    then: 'the custom resource is watched with the Deployments'
    eventually { manager.allSynced() }
    names('prod', 'Gadget') == ['default/g1'] as Set

    and: 'both are announced as configured'
    def announced = announcements.last().collectEntries { [(it.name): it] }
    announced.prod.hasMetrics() && !announced.prod.metrics
    announced.prod.customResourcesList == [CustomResource.newBuilder().setKubernetesKind('Gadget.example.com')
        .setSpinnakerKind('serverGroups').setDeployPriority('100').setVersioned(true).build()]
    !announced.prod.customResourcesList[0].hasNamespaced()
    !announced.staging.hasMetrics()
    announced.staging.customResourcesList.isEmpty()
  }

  def "namespaces: one watch per listed namespace, nothing from the others"() {
    given:
    def api = server()
    ['team-a', 'team-b', 'team-c'].each { api.createObject(namespace(it)) }
    ['team-a', 'team-b', 'team-c'].each { api.createObject(deployment("d-$it", it)) }
    api.requestLog().clear()
    def manager = watch([account('prod', kubeconfig(api), namespaces: ['team-a', 'team-b'], onlyNamespaced: true)])

    expect:
    eventually { manager.allSynced() }
    names('prod', 'Deployment') == ['team-a/d-team-a', 'team-b/d-team-b'] as Set

    and: "cluster-scoped kinds are left alone, and lists and watches are namespace-scoped"
    !manager.status('prod').get().watchedKinds().contains('Namespace')
    def deploymentRequests = api.requestLog().entries().findAll { it.uri().contains('/deployments') }*.uri()
    deploymentRequests.every { it.contains('/namespaces/team-a/') || it.contains('/namespaces/team-b/') }
    deploymentRequests.any { it.contains('/namespaces/team-a/') }
    deploymentRequests.any { it.contains('/namespaces/team-b/') }

    when:
    api.createObject(deployment('later-a', 'team-a'))
    api.createObject(deployment('later-c', 'team-c'))

    then:
    eventually { names('prod', 'Deployment').contains('team-a/later-a') }
    !names('prod', 'Deployment').contains('team-c/later-c')
  }

  def "omitNamespaces leaves out objects of those namespaces"() {
    given:
    def api = server()
    ['team-a', 'team-b'].each { api.createObject(namespace(it)) }
    ['team-a', 'team-b'].each { api.createObject(pod("p-$it", it)) }
    def manager = watch([account('prod', kubeconfig(api), omitNamespaces: ['team-b'])])

    expect:
    eventually { manager.allSynced() }
    names('prod', 'Pod') == ['team-a/p-team-a'] as Set

    when:
    api.createObject(pod('p2', 'team-b'))
    api.createObject(pod('p2', 'team-a'))

    then:
    eventually { names('prod', 'Pod').contains('team-a/p2') }
    !names('prod', 'Pod').contains('team-b/p2')
  }

  def "omitKinds and kinds choose what is watched; Secrets and ConfigMaps only when listed"() {
    given:
    def api = server()
    api.createObject(pod('p1'))
    api.createObject(configMap('c1'))
    api.createObject(deployment('d1'))
    def manager = watch([
        account('omitting', kubeconfig(api), omitKinds: ['Pod', 'Deployment.apps']),
        account('listing', kubeconfig(api), kinds: ['ConfigMap', 'Pod'])])

    expect:
    eventually { manager.allSynced() }
    names('omitting', 'Pod').isEmpty()
    names('omitting', 'Deployment').isEmpty()
    names('omitting', 'ConfigMap').isEmpty()
    manager.status('omitting').get().watchedKinds().containsAll(['Service', 'ReplicaSet.apps', 'Namespace'])
    !manager.status('omitting').get().watchedKinds().contains('Pod')
    manager.status('listing').get().watchedKinds() as Set == ['ConfigMap', 'Pod'] as Set
    names('listing', 'ConfigMap') == ['default/c1'] as Set
    names('listing', 'Pod') == ['default/p1'] as Set
  }

  def "kinds the credentials may not list or watch are reported as unwatchable; the others are watched"() {
    given:
    def api = server()
    api.accessControl().acceptToken('limited', 'limited-user', { AccessControl.AccessRequest r ->
      !(r.resource() == 'pods' || (r.resource() == 'services' && r.verb() == 'watch'))
    } as AccessControl.AccessRule)
    api.createObject(deployment('d1'))
    def manager = watch([account('prod', kubeconfig(api, 'limited'))])

    expect:
    eventually { manager.allSynced() }
    def status = manager.status('prod').get()
    status.unwatchableKinds().any { it.startsWith('Pod: may not list pods') }
    status.unwatchableKinds().any { it.startsWith('Service: may not watch services') }
    !status.watchedKinds().contains('Pod')
    names('prod', 'Deployment') == ['default/d1'] as Set
    announcements.last().find { it.name == 'prod' }.unwatchableKindsList*.kind*.kind as Set == ['Pod', 'Service'] as Set
  }

  def "a cluster is discovered with aggregated discovery where served, per group version elsewhere, to the same kinds; full access costs two reviews"() {
    given: "a server with aggregated discovery (1.30+) and one without (before 1.27), both allowing everything"
    def current = server()
    def older = server(KubernetesApiServer.builder().aggregatedDiscovery(false))
    def manager = watch([account('current', kubeconfig(current)), account('older', kubeconfig(older))])
    def reviews = { KubernetesApiServer api ->
      api.requestLog().entries().count { it.uri() == AccessReview.PATH }
    }

    expect:
    eventually { manager.allSynced() }
    manager.status('current').get().watchedKinds() as Set == manager.status('older').get().watchedKinds() as Set
    manager.status('current').get().watchedKinds().containsAll(['Deployment.apps', 'Pod', 'CustomResourceDefinition.apiextensions.k8s.io'])

    and: "aggregated: /version, /api and /apis, no per-group documents"
    current.requestLog().entries().count { it.uri() in ['/version', '/api', '/apis'] } == 3
    !current.requestLog().entries().any { it.uri() in ['/api/v1', '/apis/apps/v1'] }

    and: "legacy: the same requests answered with the group lists, then one per group version"
    older.requestLog().entries().any { it.uri() == '/api/v1' }
    older.requestLog().entries().any { it.uri() == '/apis/apps/v1' }

    and: "credentials that may list and watch everything: one review per verb, none per kind"
    reviews(current) == 2
    reviews(older) == 2
  }

  def "after 410 Gone the kind is listed again and the outbox ends with exactly what is stored, once each"() {
    given:
    def api = server()
    api.createObject(deployment('keep'))
    api.createObject(deployment('drop'))
    api.createObject(deployment('steady'))
    def manager = watch([account('prod', kubeconfig(api), kinds: ['Deployment'])])
    assert eventually { manager.allSynced() && names('prod', 'Deployment') == ['default/keep', 'default/drop', 'default/steady'] as Set }
    def listed = entries('prod').size()
    api.requestLog().clear()

    when: "the watch ends, and before it is re-established the store moves on and is compacted"
    api.faults().latency(Duration.ofMillis(700))
    api.closeAllWatches()
    api.mergePatchObject('apps/v1', 'Deployment', 'default', 'keep', '{"spec":{"replicas":5}}')
    api.deleteObject('apps/v1', 'Deployment', 'default', 'drop')
    api.createObject(deployment('new', 'default', 3))
    api.compact()

    then: "it is answered with 410, lists again, and the outbox converges on what is stored"
    eventually {
      def s = state('prod', 'Deployment')
      s.keySet() == ['Deployment default/keep', 'Deployment default/new', 'Deployment default/steady'] as Set &&
          s['Deployment default/keep'].spec.replicas == 5
    }
    def log = api.requestLog().entries().findAll { it.uri().contains('/deployments') }
    log.any { it.watchExpired() }
    log.any { !it.uri().contains('watch=true') && it.status() == 200 }

    and: "the relist sent each change once, and nothing for the object that did not change"
    def after = entries('prod').drop(listed).findAll { it instanceof OutboxEntry.Change }*.change()
    after*.name.sort() == ['drop', 'keep', 'new']
    after.find { it.name == 'drop' }.type.name() == 'CHANGE_TYPE_DELETE'

    when:
    api.faults().reset()
    api.createObject(deployment('later'))

    then:
    eventually { names('prod', 'Deployment') == ['default/keep', 'default/new', 'default/steady', 'default/later'] as Set }
  }

  def "after an API server restart the watches resume from where they were, without relisting"() {
    given:
    def api = server()
    api.createObject(deployment('before'))
    def manager = watch([account('prod', kubeconfig(api), kinds: ['Deployment'])])
    assert eventually { manager.allSynced() }
    api.requestLog().clear()

    when:
    api.restart()
    api.createObject(deployment('after'))

    then:
    eventually { names('prod', 'Deployment') == ['default/before', 'default/after'] as Set }
    def requests = api.requestLog().entries().findAll { it.uri().contains('/deployments') }
    requests.every { it.uri().contains('watch=true') && it.uri().contains('resourceVersion=') }
  }

  def "an API server that goes away after the sync is reported on the account; watching resumes when it is back"() {
    given:
    def api = server()
    api.createObject(deployment('before'))
    def manager = watch([account('prod', kubeconfig(api), kinds: ['Deployment'])])
    assert eventually { manager.allSynced() }

    when:
    api.stop()

    then:
    eventually { manager.status('prod').get().error()?.contains('cannot reach the API server') }

    when:
    api.start()
    api.createObject(deployment('after'))

    then:
    eventually { names('prod', 'Deployment') == ['default/before', 'default/after'] as Set }
    eventually { manager.status('prod').get().error() == null }
    manager.status('prod').get().state() == AccountState.READY
  }

  def "initial lists are paginated"() {
    given:
    def api = server()
    (1..7).each { api.createObject(configMap("c$it")) }
    api.requestLog().clear()
    def manager = watch([account('prod', kubeconfig(api), kinds: ['ConfigMap'])], FAST.withPageSize(3))

    expect:
    eventually { manager.allSynced() }
    names('prod', 'ConfigMap').size() == 7
    def lists = api.requestLog().entries().findAll { it.uri().contains('/configmaps') && !it.uri().contains('watch=true') }
    lists.size() == 3
    lists.every { it.uri().contains('limit=3') }
    // One first page and two continuations; the API server logs a request once it has answered it,
    // so the first page may be logged after the second.
    lists.count { !it.uri().contains('continue=') } == 1
  }

  def "a resync request sends every kind's complete listing again"() {
    given:
    def api = server()
    api.createObject(deployment('d1'))
    def manager = watch([account('prod', kubeconfig(api), kinds: ['Deployment', 'Pod'])])
    assert eventually { manager.allSynced() }
    def before = entries('prod').findAll { it instanceof OutboxEntry.Marker }.size()

    when:
    manager.resyncRequested('prod', [])

    then:
    eventually { entries('prod').findAll { it instanceof OutboxEntry.Marker }.size() == before + 4 }
    def markers = entries('prod').findAll { it instanceof OutboxEntry.Marker }.drop(before)*.marker()
    markers*.phase.count { it == ResyncPhase.RESYNC_PHASE_BEGIN } == 2
    names('prod', 'Deployment') == ['default/d1'] as Set
  }

  def "many accounts in one process, on several clusters"() {
    given:
    def first = server()
    def second = server()
    (1..3).each { first.createObject(deployment("a$it")) }
    (1..2).each { second.createObject(deployment("b$it")) }
    def accounts = (1..6).collect { i ->
      account("acct-$i", kubeconfig(i % 2 == 0 ? first : second), kinds: ['Deployment', 'Pod'])
    }
    def manager = watch(accounts)

    expect:
    eventually { manager.allSynced() }
    (1..6).every { i -> names("acct-$i", 'Deployment').size() == (i % 2 == 0 ? 3 : 2) }

    when:
    first.createObject(deployment('a4'))

    then:
    eventually { [2, 4, 6].every { names("acct-$it", 'Deployment').contains('default/a4') } }
    [1, 3, 5].every { !names("acct-$it", 'Deployment').contains('default/a4') }
  }

  def "an unreachable cluster is retried with backoff and reported; the other accounts run on"() {
    given:
    def api = server()
    api.createObject(deployment('d1'))
    def down = KubernetesApiServer.builder().build()
    down.start()
    def downKubeconfig = kubeconfig(down)
    down.stop()
    def manager = watch([account('down', downKubeconfig, kinds: ['Deployment']),
                         account('up', kubeconfig(api), kinds: ['Deployment'])])

    expect:
    eventually { manager.status('up').get().isSynced() }
    names('up', 'Deployment') == ['default/d1'] as Set
    eventually { manager.status('down').get().attempts() >= 3 }
    manager.status('down').get().state() == AccountState.FAILED
    manager.status('down').get().error().contains('cannot reach the API server')
    !manager.allSynced()

    when: "the cluster comes up"
    down.start()
    closeables << down

    then:
    eventually { manager.status('down').get().isSynced() }
    manager.allSynced()
  }

  def "a cluster refusing the credentials is reported as unauthorized"() {
    given:
    def api = server()
    api.accessControl().acceptToken('good')
    def manager = watch([account('prod', kubeconfig(api, 'bad'))])

    expect:
    eventually { manager.status('prod').get().state() == AccountState.FAILED }
    manager.status('prod').get().error().startsWith('401 Unauthorized')
  }

  def "a removed account stops and is withdrawn; a changed one restarts with its new settings"() {
    given:
    def api = server()
    api.createObject(deployment('d1'))
    api.createObject(pod('p1'))
    def manager = watch([account('one', kubeconfig(api), kinds: ['Deployment']),
                         account('two', kubeconfig(api), kinds: ['Deployment'])])
    assert eventually { manager.allSynced() }
    def path = kubeconfig(api)

    when:
    manager.apply([account('one', path, kinds: ['Pod'])])

    then:
    manager.statuses()*.name() == ['one']
    eventually { manager.allSynced() && names('one', 'Pod') == ['default/p1'] as Set }
    manager.status('one').get().watchedKinds() == ['Pod']
    eventually { announcements.last()*.name == ['one'] }
  }
}
