package io.spinagent.plugin.grpc.session

import io.grpc.ManagedChannel
import io.grpc.Server
import io.grpc.Status
import io.grpc.inprocess.InProcessChannelBuilder
import io.grpc.inprocess.InProcessServerBuilder
import io.grpc.stub.ClientCallStreamObserver
import io.grpc.stub.ClientResponseObserver
import io.grpc.stub.ServerCallStreamObserver
import io.grpc.stub.StreamObserver
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.Heartbeat
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.RefusedChange
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import spock.lang.Specification
import spock.util.concurrent.PollingConditions

/**
 * What the plugin sends an agent, under outbound flow control (as in grpc-java's
 * manualflowcontrol example): on gRPC's in-process transport the stream is ready exactly when the
 * agent has asked for frames, so the agent here reads only what the spec lets it.
 */
class OutboundFramesSpec extends Specification {

  PollingConditions conditions = new PollingConditions(timeout: 10)

  String name = InProcessServerBuilder.generateName()
  int maxQueuedFrames
  List<PluginMessage> sent = new CopyOnWriteArrayList<>()
  CompletableFuture<OutboundFrames> serverSide = new CompletableFuture<>()
  Server server = InProcessServerBuilder.forName(name).addService(new AgentChannelGrpc.AgentChannelImplBase() {
    @Override
    StreamObserver<AgentMessage> connect(StreamObserver<PluginMessage> responseObserver) {
      // As in a session: made while the call starts, when gRPC lets it set the on-ready handler.
      serverSide.complete(new OutboundFrames((ServerCallStreamObserver<PluginMessage>) responseObserver, maxQueuedFrames, sent::add))
      new StreamObserver<AgentMessage>() {
        void onNext(AgentMessage value) {}
        void onError(Throwable t) {}
        void onCompleted() {}
      }
    }
  }).build().start()
  ManagedChannel channel = InProcessChannelBuilder.forName(name).build()

  List<PluginMessage> received = new CopyOnWriteArrayList<>()
  CompletableFuture<Status> ended = new CompletableFuture<>()
  ClientCallStreamObserver<AgentMessage> agentSide

  def cleanup() {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
  }

  /** Connects an agent that reads nothing until asked to; returns the plugin's outbound frames. */
  OutboundFrames connect(int maxQueuedFrames = 10) {
    this.maxQueuedFrames = maxQueuedFrames
    AgentChannelGrpc.newStub(channel).connect(new ClientResponseObserver<AgentMessage, PluginMessage>() {
      void beforeStart(ClientCallStreamObserver<AgentMessage> requestStream) {
        agentSide = requestStream
        requestStream.disableAutoRequestWithInitial(0)
      }
      void onNext(PluginMessage message) { received << message }
      void onError(Throwable error) { ended.complete(Status.fromThrowable(error)) }
      void onCompleted() { ended.complete(Status.OK) }
    })
    serverSide.get(10, TimeUnit.SECONDS)
  }

  static PluginMessage heartbeat(long at) {
    PluginMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(at)).build()
  }

  def "frames wait while the agent does not read, and go out in order as it asks for them"() {
    given:
    def outbound = connect()

    when:
    (1..3).each { assert outbound.send(heartbeat(it)) }

    then: 'nothing is written to a stream that is not ready'
    sent.isEmpty()

    when: 'the agent asks for two'
    agentSide.request(2)

    then:
    conditions.eventually { assert received*.heartbeat*.sentAtMillis == [1L, 2L] }
    sent == received

    when:
    agentSide.request(5)

    then:
    conditions.eventually { assert received*.heartbeat*.sentAtMillis == [1L, 2L, 3L] }
  }

  def "acknowledgements not yet sent coalesce per account, go before other frames, and carry every refusal"() {
    given:
    def outbound = connect()
    def refused = { String name -> RefusedChange.newBuilder().setName(name).setReason('too long').build() }

    when: 'the agent reads nothing while commits are acknowledged'
    outbound.send(heartbeat(1))
    outbound.acknowledge('prod', 1, [refused('a')])
    outbound.acknowledge('staging', 7, [])
    outbound.acknowledge('prod', 3, [refused('b')])
    outbound.acknowledge('prod', 2, [])
    agentSide.request(10)

    then: 'one ack per account, at its highest sequence, then the heartbeat'
    conditions.eventually { assert received.size() == 3 }
    received[0].ack.account == 'prod'
    received[0].ack.sequence == 3
    received[0].ack.refusedList*.name == ['a', 'b']
    received[1].ack.account == 'staging'
    received[1].ack.sequence == 7
    received[2].heartbeat.sentAtMillis == 1
  }

  def "an agent that lets more than the bound pile up is refused more frames, while acknowledgements still coalesce"() {
    given:
    def outbound = connect(2)

    expect:
    outbound.send(heartbeat(1))
    outbound.send(heartbeat(2))
    !outbound.send(heartbeat(3))

    when:
    100.times { outbound.acknowledge('prod', it + 1, []) }
    agentSide.request(10)

    then:
    conditions.eventually { assert received.size() == 3 }
    received*.bodyCase == [PluginMessage.BodyCase.ACK, PluginMessage.BodyCase.HEARTBEAT, PluginMessage.BodyCase.HEARTBEAT]
    received[0].ack.sequence == 100
  }

  def "closing ends the stream with its status and drops what waits; later frames are ignored"() {
    given:
    def outbound = connect()
    outbound.send(heartbeat(1))

    when:
    outbound.close(Status.RESOURCE_EXHAUSTED.withDescription('agent is not reading'))

    then:
    def status = ended.get(10, TimeUnit.SECONDS)
    status.code == Status.Code.RESOURCE_EXHAUSTED
    status.description == 'agent is not reading'

    when:
    agentSide.request(10)
    outbound.send(heartbeat(2))
    outbound.acknowledge('prod', 1, [])
    outbound.close(Status.OK)

    then:
    received.isEmpty()
    sent.isEmpty()
  }

  def "closing with OK completes the stream"() {
    given:
    def outbound = connect()

    when:
    outbound.close(Status.OK)

    then:
    ended.get(10, TimeUnit.SECONDS) == Status.OK
  }

  def "when the agent's connection is gone the transport says so, and closing is quiet"() {
    given:
    def outbound = connect()

    expect:
    !outbound.transportGone()

    when:
    agentSide.cancel('agent went away', null)

    then:
    conditions.eventually { assert outbound.transportGone() }

    when:
    outbound.send(heartbeat(1))
    outbound.close(Status.UNAVAILABLE)

    then: 'nothing is written, and nothing thrown'
    sent.isEmpty()
  }
}
