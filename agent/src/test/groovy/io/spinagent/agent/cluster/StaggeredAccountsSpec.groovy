package io.spinagent.agent.cluster

import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.agent.config.TasksConfig

import java.time.Duration

/** kubernetes.cacheGroupSize / cacheGroupDelayMs through the cluster manager, against a Kubernetes API server. */
class StaggeredAccountsSpec extends ClusterSpecification {

  def "only the first group contacts its clusters until the delay has passed"() {
    given: "a delay no feature waits for"
    def api = server()
    api.createObject(deployment('d1'))
    def manager = manager(FAST, new TasksConfig(1000, 50),
        new KubernetesConfig.CacheGroups(2, Duration.ofHours(1)))

    when:
    manager.apply((1..5).collect { account("acct-$it", kubeconfig(api), kinds: ['Deployment']) })

    then: "two accounts sync; the other three have not tried to connect"
    eventually { ['acct-1', 'acct-2'].every { manager.status(it).get().isSynced() } }
    ['acct-3', 'acct-4', 'acct-5'].every {
      def status = manager.status(it).get()
      status.state() == AccountState.CONNECTING && status.attempts() == 0
    }
    api.requestLog().entries().count { it.uri() == '/version' } == 2
  }

  def "with a short delay every group starts in turn"() {
    given:
    def api = server()
    api.createObject(deployment('d1'))
    def manager = manager(FAST, new TasksConfig(1000, 50),
        new KubernetesConfig.CacheGroups(2, Duration.ofMillis(200)))

    when:
    manager.apply((1..5).collect { account("acct-$it", kubeconfig(api), kinds: ['Deployment']) })

    then:
    eventually { manager.allSynced() }
    (1..5).every { names("acct-$it", 'Deployment') == ['default/d1'] as Set }
  }
}
