package io.spinagent.plugin.grpc.session

import io.spinagent.protocol.v1.TunnelFrame
import spock.lang.Specification
import spock.lang.Tag

/** A session's tunnel frames go to its one subscriber, which hears when the session ends. */
@Tag('one-class')
class TunnelFrameRouteSpec extends Specification {

  TunnelFrameRoute route = new TunnelFrameRoute()

  static class Recording implements TunnelFrameSubscriber {
    final List<TunnelFrame> frames = []
    final List<String> closed = []

    void received(TunnelFrame frame) { frames << frame }

    void sessionClosed(String reason) { closed << reason }
  }

  static TunnelFrame frame(long streamId) {
    TunnelFrame.newBuilder().setStreamId(streamId).build()
  }

  def "frames before anyone subscribed are dropped; from then on they go to the subscriber, in order"() {
    given:
    def tunnel = new Recording()
    route.received(frame(1))

    when:
    route.subscribe(tunnel, 'agent-1')
    route.received(frame(2))
    route.received(frame(3))

    then:
    tunnel.frames*.streamId == [2L, 3L]
  }

  def "a second subscriber is refused"() {
    given:
    route.subscribe(new Recording(), 'agent-1')

    when:
    route.subscribe(new Recording(), 'agent-1')

    then:
    def e = thrown(IllegalStateException)
    e.message == "agent 'agent-1': this session's tunnel frames already have a subscriber"
  }

  def "when the session ends the subscriber is told why, and nobody can subscribe any more"() {
    given:
    def tunnel = new Recording()
    route.subscribe(tunnel, 'agent-1')

    when:
    route.close("agent 'agent-1' disconnected (OK)")

    then:
    tunnel.closed == ["agent 'agent-1' disconnected (OK)"]
    !route.subscribe(new Recording(), 'agent-1')
  }

  def "a session that ends without a subscriber tells nobody"() {
    when:
    route.close('gone')

    then:
    noExceptionThrown()
    !route.subscribe(new Recording(), 'agent-1')
  }
}
