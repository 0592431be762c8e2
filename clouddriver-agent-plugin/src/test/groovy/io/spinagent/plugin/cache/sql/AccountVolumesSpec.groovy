package io.spinagent.plugin.cache.sql

import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class AccountVolumesSpec extends Specification {

  static final long SECOND = 1_000_000_000L

  AccountVolumes volumes = new AccountVolumes()

  def "an account streaming hundreds of changes a second is busy; one sending a few is not"() {
    when: 'ten seconds: one account sends 20 changes every 20 ms, another one change every 500 ms'
    for (long t = 0; t <= 10 * SECOND; t += SECOND / 50) {
      volumes.add('flood', 20, t)
      if (t % (SECOND / 2) == 0) {
        volumes.add('quiet', 1, t)
      }
    }

    then:
    volumes.isBusy('flood', 10 * SECOND)
    !volumes.isBusy('quiet', 10 * SECOND)
    !volumes.isBusy('never-seen', 10 * SECOND)
    volumes.busy(10 * SECOND) == 1
  }

  def "a listing makes its account busy for about a second"() {
    when:
    volumes.add('new-cluster', 300, 0)

    then:
    volumes.isBusy('new-cluster', 0)
    volumes.isBusy('new-cluster', SECOND)
    !volumes.isBusy('new-cluster', 2 * SECOND)
  }

  def "accounts that have quietened down are forgotten, so the volumes stay as many as the accounts that write"() {
    given: 'a thousand accounts each send a change'
    (1..1000).each { volumes.add("account-$it", 1, 0) }

    when: 'a few seconds later one of them sends again'
    volumes.add('account-1', 1, 5 * SECOND)

    then:
    volumes.remembered() == 1
  }
}
