package io.spinagent.plugin.accounts

import spock.lang.Specification
import spock.lang.Tag

@Tag('one-class')
class MigrationTargetSpec extends Specification {

  def "exactly one of zone-id and agent-id; a blank one counts as unset (#zone, #agent)"() {
    when:
    MigrationTarget.of('spinagent.accounts.auto-migrate', zone, agent, 'the matching accounts')

    then:
    IllegalArgumentException e = thrown()
    e.message == 'spinagent.accounts.auto-migrate: give exactly one of zone-id and agent-id (the agents that the matching accounts are migrated to)'

    where:
    zone   | agent
    null   | null
    ' '    | ''
    'zone' | 'agent-1'
  }

  def "a zone includes its agents, an agent id only that agent; each says which it is"() {
    expect:
    MigrationTarget.of('s', 'zone-a', ' ', 'x').includes('any', 'zone-a')
    !MigrationTarget.of('s', 'zone-a', null, 'x').includes('any', 'zone-b')
    MigrationTarget.of('s', null, 'agent-1', 'x').includes('agent-1', 'zone-b')
    !MigrationTarget.of('s', '', 'agent-1', 'x').includes('agent-2', 'zone-a')
    MigrationTarget.of('s', 'zone-a', null, 'x').toString() == "zone 'zone-a'"
    MigrationTarget.of('s', null, 'agent-1', 'x').toString() == "agent 'agent-1'"
  }
}
