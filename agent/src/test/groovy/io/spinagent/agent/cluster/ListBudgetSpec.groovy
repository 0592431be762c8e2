package io.spinagent.agent.cluster

import io.spinagent.agent.config.TasksConfig
import io.spinagent.testkit.kubernetes.KubernetesApiServer

import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

class ListBudgetSpec extends ClusterSpecification {

  def "permits are bounded per account and in total"() {
    given:
    def budget = new ListBudget(3, 2)
    def a = budget.forAccount()
    def b = budget.forAccount()

    when:
    a.acquire(); a.acquire()
    b.acquire()

    then: "a has used its share, and the total is used up"
    a.available() == 0
    budget.availableTotal() == 0

    when: "b waits for the total, not for a's share"
    def acquired = new CountDownLatch(1)
    Thread.start { b.acquire(); acquired.countDown() }

    then:
    !acquired.await(200, TimeUnit.MILLISECONDS)

    when:
    a.release()

    then:
    acquired.await(60, TimeUnit.SECONDS)
    a.available() == 1
  }

  /** The most lists in flight at once while the account syncs, sampled every few milliseconds. */
  int peakListsWhileSyncing(int budgetPerAccount) {
    def api = server(KubernetesApiServer.builder())
    def manager = manager(FAST, new TasksConfig(10, budgetPerAccount))
    def peak = new AtomicInteger()
    def sampling = true
    def sampler = Thread.start {
      while (sampling) {
        peak.accumulateAndGet(manager.listsInFlight(), Math::max)
        Thread.sleep(2)
      }
    }
    // Slow answers, so that lists overlap unless the budget keeps them apart.
    api.faults().latency(Duration.ofMillis(250))
    manager.apply([account('prod', kubeconfig(api), kinds: ['Deployment', 'Pod', 'Service', 'ConfigMap'])])
    assert eventually { manager.allSynced() }
    sampling = false
    sampler.join()
    peak.get()
  }

  def "with a budget of one list per account, an account's kinds are listed one at a time"() {
    expect:
    peakListsWhileSyncing(1) == 1
  }

  def "control: with a larger budget the same lists overlap"() {
    expect:
    peakListsWhileSyncing(4) > 1
  }
}
