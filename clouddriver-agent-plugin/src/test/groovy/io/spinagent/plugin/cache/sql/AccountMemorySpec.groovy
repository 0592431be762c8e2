package io.spinagent.plugin.cache.sql

import spock.lang.Specification
import spock.lang.Tag

/** What the writer keeps of an account between transactions, and what a claim does to it. */
@Tag('one-class')
class AccountMemorySpec extends Specification {

  AccountMemory memory = new AccountMemory('prod')

  def "a committed transaction leaves its listings, logical rows and rebuilt index"() {
    when:
    def taken = memory.take()
    def listings = [pod: new AccountMemory.Listing('r1', ['k'] as Set)]
    memory.install(taken, true, listings, ['x/Y'] as Set, [app: 1L])

    then:
    memory.take().with {
      it.listings() == listings && it.awaitingListing() == ['x/Y'] as Set && it.logical() == [app: 1L] && it.indexTrusted()
    }
  }

  def "a claim while a transaction runs drops its listings and leaves the index untrusted"() {
    given:
    def taken = memory.take()

    when:
    memory.claimed()
    memory.install(taken, true, [pod: new AccountMemory.Listing('r1', [] as Set)], [] as Set, [:])

    then:
    memory.take().listings().isEmpty()
    !memory.take().indexTrusted()
    !memory.isCurrent(taken.scope())
  }

  def "a failed transaction's remembered rows are forgotten, the rest is left as it was"() {
    given:
    memory.install(memory.take(), true, [pod: new AccountMemory.Listing('r1', [] as Set)], [] as Set, [:])
    def taken = memory.take()

    when:
    memory.forgetCommittedRows()

    then:
    !memory.isCurrent(taken.scope())
    memory.take().listings().keySet() == ['pod'] as Set
    memory.take().indexTrusted()
  }
}
