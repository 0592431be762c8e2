package io.spinagent.agent.cluster

import io.spinagent.agent.config.KubernetesConfig
import io.spinagent.testkit.kubernetes.KubernetesApiServer
import java.time.Duration
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit
import spock.lang.Specification

/**
 * kubernetes.cacheGroupSize / cacheGroupDelayMs: accounts start in groups of that size, that long
 * apart. The start queue runs on a clock and a timer the spec drives itself, so "that long apart"
 * is the delay the queue asks its timer for, not a measured time.
 */
class StaggeredStartSpec extends Specification {

  /** Timer tasks in the order they were scheduled, with the delay asked for, in nanoseconds. */
  List<List> scheduled = []
  long now = 0
  ScheduledExecutorService timer = [schedule: { Runnable task, long delay, TimeUnit unit ->
    scheduled << [task, unit.toNanos(delay)]
    null
  }] as ScheduledExecutorService

  /** Runs the next scheduled task after advancing the clock by its delay; returns the delay. */
  long runNext() {
    def (Runnable task, long delay) = scheduled.remove(0)
    now += delay
    task.run()
    delay
  }

  def "accounts start in groups of cacheGroupSize, cacheGroupDelayMs apart"() {
    given:
    def start = new StaggeredStart(new KubernetesConfig.CacheGroups(2, Duration.ofSeconds(5)), timer, { now })
    List<String> started = []

    when: "five accounts are submitted at once"
    (1..5).each { n -> start.submit { started << "a$n".toString() } }

    then: "the first group starts at once; the rest wait for the group's delay"
    started == ['a1', 'a2']
    start.waiting() == 3
    scheduled.size() == 1

    and: "each further group a delay later"
    runNext() == TimeUnit.SECONDS.toNanos(5)
    started == ['a1', 'a2', 'a3', 'a4']
    runNext() == TimeUnit.SECONDS.toNanos(5)
    started == ['a1', 'a2', 'a3', 'a4', 'a5']
    scheduled.isEmpty()
    start.waiting() == 0
  }

  def "an account submitted later starts at once if its group has room, otherwise when the delay since the group began has passed"() {
    given:
    def start = new StaggeredStart(new KubernetesConfig.CacheGroups(2, Duration.ofSeconds(10)), timer, { now })
    List<String> started = []
    start.submit { started << 'first' }

    when: "four seconds later a second account comes (e.g. added by Clouddriver): the group has room"
    now += TimeUnit.SECONDS.toNanos(4)
    start.submit { started << 'second' }

    then:
    started == ['first', 'second']
    scheduled.isEmpty()

    when: "a third comes at the same moment: the group is full"
    start.submit { started << 'third' }

    then: "it waits for what is left of the delay"
    started == ['first', 'second']
    scheduled.size() == 1
    runNext() == TimeUnit.SECONDS.toNanos(6)
    started == ['first', 'second', 'third']

    when: "long after, another account starts a group of its own at once"
    now += TimeUnit.SECONDS.toNanos(60)
    start.submit { started << 'fourth' }

    then:
    started.last() == 'fourth'
    scheduled.isEmpty()
  }

  def "without both settings every account starts at once"() {
    given:
    def start = new StaggeredStart(groups, timer, { now })
    List<String> started = []

    when:
    (1..3).each { n -> start.submit { started << "a$n".toString() } }

    then:
    started == ['a1', 'a2', 'a3']
    scheduled.isEmpty()

    where:
    groups << [KubernetesConfig.CacheGroups.NONE, new KubernetesConfig.CacheGroups(5, Duration.ZERO),
               new KubernetesConfig.CacheGroups(0, Duration.ofSeconds(5))]
  }
}
