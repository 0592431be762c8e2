package io.spinagent.agent.cluster

import java.util.concurrent.Callable
import spock.lang.Specification

/** Which threads run the watches: virtual threads on Java 21 and later, platform threads on 17. */
class ClusterThreadsSpec extends Specification {

  def "virtual threads from Java 21 on, unless switched off or unavailable"() {
    expect:
    with(ClusterThreads.mode(feature, property, available)) {
      virtual() == expectedVirtual
      reason() == expectedReason
    }

    where:
    feature | property | available || expectedVirtual | expectedReason
    17      | null     | false     || false           | 'Java 17; virtual threads need Java 21 or later'
    21      | null     | true      || true            | 'Java 21'
    25      | 'true'   | true      || true            | 'Java 25'
    25      | 'false'  | true      || false           | 'spinagent.virtualThreads=false'
    25      | 'FALSE'  | true      || false           | 'spinagent.virtualThreads=false'
    21      | null     | false     || false           | 'Java 21, but virtual threads could not be created'
  }

  def "on this JVM the watches run on the threads its version allows, named for the agent"() {
    given:
    def threads = new ClusterThreads(property)
    int feature = Runtime.version().feature()

    when:
    Thread watch = threads.watches().submit({ Thread.currentThread() } as Callable<Thread>).get()
    Thread timer = threads.timers().submit({ Thread.currentThread() } as Callable<Thread>).get()

    then:
    threads.mode().virtual() == (feature >= 21 && property == null)
    watch.name.startsWith('spinagent-watch-')
    isVirtual(watch) == threads.mode().virtual()
    timer.name == 'spinagent-cluster-timer'
    timer.daemon

    cleanup:
    threads?.close()

    where:
    property << [null, 'false']
  }

  static boolean isVirtual(Thread thread) {
    try {
      Thread.getMethod('isVirtual').invoke(thread)
    } catch (NoSuchMethodException e) {
      false
    }
  }
}
