package io.spinagent.agent

import io.spinagent.protocol.v1.ResyncPhase
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import spock.lang.Timeout

/**
 * An agent restarted against a version 2 plugin watches from the plugin's resume points instead of
 * listing, when they are recent enough and the API server still has them; otherwise it lists. What
 * the stopped agent had sent but Clouddriver had not committed is not lost: the resume points are
 * below it, so the restarted agent's watches bring it again.
 */
class ResumeSpec extends AgentSpecification {

  def setup() {
    channel.protocolVersion = 2
  }

  /** Listing requests (not watches, not access reviews) for {@code plural}. */
  static List lists(KubernetesApiServer api, String plural) {
    api.requestLog().entries().findAll { it.uri().contains("/$plural") && !it.uri().contains('watch=true') }
  }

  int ends(String account) {
    channel.committedMarkers.getOrDefault(account, []).count { it.phase == ResyncPhase.RESYNC_PHASE_END } as int
  }

  def "after a restart, kinds resume from Clouddriver's resume points: nothing is listed, and what changed meanwhile arrives"() {
    given:
    def api = cluster()
    api.createObject(deployment('d1'))
    api.createObject(deployment('gone'))
    api.createObject(configMap('c1'))
    def config = yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment', 'ConfigMap']])
    def first = start(config)
    assert eventually { channel.resumePoints['prod']?.size() == 2 && channel.objects('prod').size() == 3 }
    stop(first)
    int endsBefore = ends('prod')

    when: "the cluster changes while the agent is down, and the agent starts again"
    api.createObject(deployment('d2'))
    api.mergePatchObject('v1', 'ConfigMap', 'default', 'c1', '{"data":{"k":"changed"}}')
    api.deleteObject('apps/v1', 'Deployment', 'default', 'gone')
    api.requestLog().clear()
    def second = start(config)

    then: "every change arrives"
    eventually {
      channel.objects('prod') == ['Deployment default/d1', 'Deployment default/d2', 'ConfigMap default/c1'] as Set
    }
    eventually { channel.committedChanges['prod'].findAll { it.name == 'c1' }.last().objectJson.toStringUtf8().contains('changed') }
    eventually { second.clusters().allSynced() }

    and: "nothing was listed: only watches from the resume points"
    lists(api, 'deployments').isEmpty()
    lists(api, 'configmaps').isEmpty()
    api.requestLog().entries().findAll { it.uri().contains('watch=true') }.every { it.uri().contains('resourceVersion=') }
    ends('prod') == endsBefore
  }

  def "resume points older than maxResumableResourceAgeMs are not used: the kinds are listed"() {
    given:
    def api = cluster()
    api.createObject(deployment('d1'))
    def config = yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment'], maxResumableResourceAgeMs: 0])
    def first = start(config)
    assert eventually { channel.resumePoints['prod']?.containsKey('apps/Deployment') }
    stop(first)
    int endsBefore = ends('prod')
    api.requestLog().clear()

    when:
    start(config)

    then:
    eventually { ends('prod') == endsBefore + 1 }
    !lists(api, 'deployments').isEmpty()
  }

  def "a resume point the API server no longer has (410) leads to a complete listing, which removes what went away"() {
    given:
    def api = cluster()
    api.createObject(deployment('d1'))
    api.createObject(deployment('gone'))
    def config = yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment']])
    def first = start(config)
    assert eventually { channel.resumePoints['prod']?.containsKey('apps/Deployment') && channel.objects('prod').size() == 2 }
    stop(first)
    int endsBefore = ends('prod')

    when: "while the agent is down an object goes away and the API server compacts its history"
    api.deleteObject('apps/v1', 'Deployment', 'default', 'gone')
    api.createObject(deployment('d2'))
    api.compact()
    api.requestLog().clear()
    start(config)

    then: "the watch from the resume point is answered 410, and the kind is listed between markers"
    eventually { ends('prod') == endsBefore + 1 }
    eventually { channel.objects('prod') == ['Deployment default/d1', 'Deployment default/d2'] as Set }
    api.requestLog().entries().any { it.uri().contains('/deployments') && it.watchExpired() }
    !lists(api, 'deployments').isEmpty()
  }

  @Timeout(300)
  def "a session whose replica holds no resume point for a watched kind gets a listing of that kind, and no other"() {
    given: 'the agent streams prod, and Clouddriver holds resume points for both its kinds'
    def api = cluster()
    api.createObject(deployment('d1'))
    api.createObject(configMap('c1'))
    def config = yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment', 'ConfigMap']])
    def agent = start(config)
    assert eventually { channel.resumePoints['prod']?.size() == 2 && channel.objects('prod').size() == 2 }
    int endsBefore = ends('prod')

    when: "the session ends, and the replica of the next one has the ConfigMap's resume point only"
    channel.holdWelcomes = true
    int hellosBefore = channel.hellos.size()
    channel.dropSessions()
    assert eventually { channel.hellos.size() > hellosBefore }
    channel.resumePoints['prod'].remove('apps/Deployment')
    api.requestLog().clear()
    channel.releaseWelcomes()

    then: 'the running Deployment watch lists again, so that the replica learns it is in sync'
    eventually { ends('prod') == endsBefore + 1 }
    eventually { agent.clusters().allSynced() }
    !lists(api, 'deployments').isEmpty()

    and: 'the ConfigMap watch goes on from where it was'
    lists(api, 'configmaps').isEmpty()
  }

  def "fifty accounts stop at once, and what they had sent without its being committed arrives after the restart"() {
    given: "fifty accounts of one cluster, streaming"
    def api = cluster(KubernetesApiServer.builder().bookmarkInterval(java.time.Duration.ofSeconds(1)))
    api.createObject(configMap('c1'))
    def kubeconfigFile = kubeconfig(api)
    def accounts = (1..50).collectEntries { ["acct-$it".toString(), [kubeconfigFile: kubeconfigFile, kinds: ['ConfigMap']]] }
    def config = yaml(accounts)
    def first = start(config)
    assert eventually { (1..50).every { channel.objects("acct-$it") == ['ConfigMap default/c1'] as Set } }
    assert eventually { (1..50).every { channel.resumePoints["acct-$it"]?.containsKey('/ConfigMap') } }

    when: "Clouddriver stops committing, a change reaches it from every account, and the agent is stopped"
    channel.dropBatches = true
    api.createObject(configMap('c2'))
    assert eventually {
      (1..50).every { n -> channel.batches.any { b -> b.account == "acct-$n" && b.changesList.any { it.name == 'c2' } } }
    }
    stop(first)

    then: "every watch connection is closed and every thread of the agent's cluster side has ended"
    eventually { api.activeWatches() == 0 }
    eventually { agentThreads().isEmpty() }
    (1..50).every { !channel.objects("acct-$it").contains('ConfigMap default/c2') }

    when: "Clouddriver commits again, and the agent starts again"
    channel.dropBatches = false
    api.requestLog().clear()
    start(config)

    then: "the change arrives for every account, from watches resumed below it: nothing is listed"
    eventually { (1..50).every { channel.objects("acct-$it") == ['ConfigMap default/c1', 'ConfigMap default/c2'] as Set } }
    lists(api, 'configmaps').isEmpty()
  }

  static final String CRD = '''{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"gadgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}'''

  def "an account announced again while its changes are not committed starts its watches again from the resume points"() {
    given: "an account whose kinds change when a CRD appears"
    def api = cluster()
    api.createObject(deployment('d1'))
    def runtime = start(yaml(prod: [kubeconfigFile: kubeconfig(api), kinds: ['Deployment', 'CustomResourceDefinition', 'Gadget.example.com']]))
    // Both kinds listed, so that the CRD below reaches the agent as a watch event.
    assert eventually { runtime.clusters().allSynced() }
    assert eventually { channel.resumePoints['prod']?.containsKey('apps/Deployment') && channel.objects('prod') == ['Deployment default/d1'] as Set }

    when: "a change reaches Clouddriver but is not committed"
    channel.dropUntilWithdrawn << 'prod'
    api.createObject(deployment('d2'))
    assert eventually { channel.batches.any { b -> b.changesList.any { it.name == 'd2' } } }

    and: "the account is announced again: withdrawn (Clouddriver discards what it had not committed, the agent what it had not sent) and added"
    api.createObject(CRD)
    assert eventually { channel.withdrawn.contains('prod') && channel.accounts['prod']?.kindsList*.kind?.contains('Gadget') }

    then: "the change arrives all the same"
    eventually { channel.objects('prod') == ['Deployment default/d1', 'Deployment default/d2', 'CustomResourceDefinition gadgets.example.com'] as Set }
  }

  /** Live threads of the agent's cluster side and stream. */
  static List<String> agentThreads() {
    Thread.allStackTraces.keySet().findAll { t ->
      t.name.startsWith('spinagent-watch-') || t.name.startsWith('spinagent-account-') ||
          t.name == 'spinagent-cluster-timer' || t.name == 'spinagent-stream'
    }*.name
  }
}
