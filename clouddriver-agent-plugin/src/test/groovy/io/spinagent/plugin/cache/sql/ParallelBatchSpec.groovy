package io.spinagent.plugin.cache.sql

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.Executor
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.RejectedExecutionException
import spock.lang.Specification

class ParallelBatchSpec extends Specification {

  ExecutorService helpers = Executors.newFixedThreadPool(3)

  def cleanup() {
    helpers.shutdownNow()
  }

  def "results come in the items' order, whichever thread computed them"() {
    given:
    Set<String> threads = ConcurrentHashMap.newKeySet()
    def batch = ParallelBatch.start((0..<500).toList(), { Integer i ->
      threads << Thread.currentThread().name
      i * 2
    }, helpers, 3)

    expect:
    (0..<500).collect { batch.get(it) } == (0..<500).collect { it * 2 }
    (0..<500).every { batch.isDone(it) }
  }

  def "with no helper ever scheduled, the consumer computes every item itself"() {
    given: 'an executor that accepts tasks and never runs them'
    List<Runnable> never = []
    Executor idle = { Runnable r -> never << r }
    Set<String> threads = ConcurrentHashMap.newKeySet()
    def batch = ParallelBatch.start((0..<50).toList(), { Integer i ->
      threads << Thread.currentThread().name
      i + 1
    }, idle, 2)

    expect:
    !batch.isDone(0)
    batch.get(49) == 50
    (0..<50).collect { batch.get(it) } == (1..50).toList()
    threads == [Thread.currentThread().name] as Set
    never.size() == 2
  }

  def "an executor that refuses the helpers leaves the work to the consumer"() {
    given:
    Executor refusing = { Runnable r -> throw new RejectedExecutionException('shut down') }

    when:
    def batch = ParallelBatch.start(['a', 'b'], { String s -> s.toUpperCase() }, refusing, 4)

    then:
    batch.get(0) == 'A'
    batch.get(1) == 'B'
  }

  def "a failure on one item is rethrown for that item only"() {
    given:
    def batch = ParallelBatch.start((0..<20).toList(), { Integer i ->
      if (i == 7) {
        throw new IllegalStateException('item 7 is bad')
      }
      i
    }, helpers, 2)

    when:
    batch.get(7)

    then:
    IllegalStateException e = thrown()
    e.message == 'item 7 is bad'
    batch.get(6) == 6
    batch.get(19) == 19
  }
}
