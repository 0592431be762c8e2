package io.spinagent.agent.cluster

import io.spinagent.testkit.kubernetes.KubernetesApiServer

/**
 * The agent's threads do not grow with accounts × kinds beyond one per watch, in this JVM: a watch
 * is one platform thread on Java 17 (a virtual thread from Java 21 on, where it costs no platform
 * thread at all; {@code AgentProcessSpec} runs the agent on such a JVM), and everything else is a
 * fixed set shared by all accounts. client-java's informers, which this replaces, took three threads
 * per watch and one per account.
 */
class ThreadBudgetSpec extends ClusterSpecification {

  static final List<String> KINDS = ['Deployment', 'ConfigMap', 'Service']

  /** Names of live threads that are not the test's own (the API server's, JUnit's, the JVM's). */
  static List<String> threadsBesides(Set<String> before) {
    Thread.allStackTraces.keySet()*.name.findAll { !before.contains(it) && !it.startsWith('kube-api-test-server-') }
  }

  /** Starts {@code accounts} accounts, waits until they are synced, and counts threads. */
  Map<String, Object> threadsFor(KubernetesApiServer api, int accounts, Set<String> before) {
    def manager = manager()
    manager.apply((1..accounts).collect { account("acct-$it", kubeconfig(api), kinds: KINDS) })
    assert eventually { manager.allSynced() }
    assert manager.watchLoops() == accounts * KINDS.size()
    def threads = threadsBesides(before)
    def shared = threads.findAll { !it.startsWith('spinagent-watch-') && !it.startsWith('spinagent-account-') }
    def counts = [
        watches       : threads.count { it.startsWith('spinagent-watch-') } as Integer,
        // Bounded, and ended once idle: how many are left depends on how recently accounts worked.
        accountWorkers: threads.count { it.startsWith('spinagent-account-') } as Integer,
        other         : shared.size(),
        informer      : threads.count { it.toLowerCase().contains('informer') || it.toLowerCase().contains('reflector') } as Integer,
        loops         : manager.watchLoops(),
        virtual       : manager.threadMode().virtual()]
    println "threads besides the test's, watches and account workers with $accounts accounts: $shared"
    manager.close()
    closeables.remove(manager)
    counts
  }

  def "one thread per watch on this JVM's platform threads, and the same few others for one account or thirty"() {
    given:
    def api = server()
    api.createObject(deployment('d1'))
    api.createObject(configMap('c1'))
    def before = Thread.allStackTraces.keySet()*.name as Set

    when:
    def one = threadsFor(api, 1, before)
    def thirty = threadsFor(api, 30, before)

    then: "no informer machinery"
    one.informer == 0
    thirty.informer == 0

    and: "one thread per watch where watches need platform threads, none where they run on virtual threads"
    thirty.watches == (thirty.virtual ? 0 : thirty.loops)
    one.watches == (one.virtual ? 0 : one.loops)

    and: "account work runs on a bounded pool, whatever the number of accounts"
    thirty.accountWorkers <= ClusterThreads.ACCOUNT_WORKERS

    and: "besides those, thirty accounts of three kinds take no more threads than one account (OkHttp's shared task threads may vary by one or two)"
    thirty.other <= one.other + 2
  }
}
