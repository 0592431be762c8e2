package io.spinagent.plugin.grpc.session

import static io.spinagent.plugin.grpc.RawAgent.DEPLOYMENT

import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.Role
import spock.lang.Specification
import spock.lang.Tag

/** How an agent is asked for a new listing, by the protocol version it speaks. */
@Tag('one-class')
class ListingRequestsSpec extends Specification {

  def "a version 2 agent gets a resync request for the kinds, with the reason"() {
    when:
    def frame = ListingRequests.frame('prod', [DEPLOYMENT], 7, 2)

    then:
    frame.bodyCase == PluginMessage.BodyCase.RESYNC_REQUEST
    frame.resyncRequest.account == 'prod'
    frame.resyncRequest.kindsList == [DEPLOYMENT]
    frame.resyncRequest.reason == ListingRequests.REASON
  }

  def "a version 1 agent is told to list the whole account again, from its committed sequence"() {
    when:
    def frame = ListingRequests.frame('prod', [DEPLOYMENT], 7, 1)

    then:
    frame.bodyCase == PluginMessage.BodyCase.DECISIONS
    with(frame.decisions.accountsList.first()) {
      account == 'prod'
      accepted
      role == Role.ROLE_CACHING
      resyncRequired
      committedSequence == 7
    }
    frame.decisions.accountsCount == 1
  }
}
