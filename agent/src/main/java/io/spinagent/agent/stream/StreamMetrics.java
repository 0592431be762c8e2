package io.spinagent.agent.stream;

import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.PluginMessage;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The stream's meters. Names are documented in docs/agent-configuration.md ("Metrics"); in
 * Prometheus they appear with dots as underscores and counters suffixed {@code _total}.
 */
public final class StreamMetrics {

  private final MeterRegistry registry;
  private final AtomicInteger connected = new AtomicInteger();
  private final Counter reconnects;
  private final Counter acks;
  private final Counter refused;

  public StreamMetrics(MeterRegistry registry, Outbox outbox) {
    this.registry = registry;
    Gauge.builder("spinagent.agent.connected", connected, AtomicInteger::get)
        .description("1 while a session with Clouddriver is established (welcomed), else 0")
        .register(registry);
    reconnects =
        Counter.builder("spinagent.agent.reconnects")
            .description("Attempts to reopen the stream after it ended or could not be opened")
            .register(registry);
    acks =
        Counter.builder("spinagent.agent.acks.received")
            .description("Acknowledgements received from Clouddriver")
            .register(registry);
    refused =
        Counter.builder("spinagent.agent.changes.refused")
            .description(
                "Changes Clouddriver committed as not stored (Ack.refused), each logged with the"
                    + " reason")
            .register(registry);
    Gauge.builder("spinagent.agent.outbox.entries", outbox, Outbox::size)
        .description("Changes, resync markers and watch progress not yet acknowledged")
        .register(registry);
    Gauge.builder("spinagent.agent.outbox.bytes", outbox, Outbox::bytes)
        .description("Bytes held in the outbox, counted against clouddriver.outbox.maxBytes")
        .register(registry);
    Gauge.builder("spinagent.agent.outbox.max.bytes", outbox, Outbox::maxBytes)
        .description("clouddriver.outbox.maxBytes")
        .register(registry);
    FunctionCounter.builder("spinagent.agent.outbox.blocked.puts", outbox, Outbox::blockedPuts)
        .description("Changes whose producer had to wait for space in the outbox")
        .register(registry);
    FunctionCounter.builder(
            "spinagent.agent.outbox.blocked.seconds",
            outbox,
            o -> o.blockedNanos() / (double) TimeUnit.SECONDS.toNanos(1))
        .description("Time producers spent waiting for space in the outbox")
        .register(registry);
  }

  void connected(boolean isConnected) {
    connected.set(isConnected ? 1 : 0);
  }

  void reconnecting() {
    reconnects.increment();
  }

  void acknowledged() {
    acks.increment();
  }

  void refused() {
    refused.increment();
  }

  void sent(AgentMessage message) {
    String type = type(message.getBodyCase());
    registry.counter("spinagent.agent.frames.sent", "type", type).increment();
    registry
        .counter("spinagent.agent.frame.bytes.sent", "type", type)
        .increment(message.getSerializedSize());
  }

  void received(PluginMessage message) {
    String type = type(message.getBodyCase());
    registry.counter("spinagent.agent.frames.received", "type", type).increment();
    registry
        .counter("spinagent.agent.frame.bytes.received", "type", type)
        .increment(message.getSerializedSize());
  }

  void commandAnswered(Command.CommandCase type, boolean ok) {
    registry
        .counter("spinagent.agent.commands", "type", type(type), "result", ok ? "ok" : "refused")
        .increment();
  }

  void sessionEnded(Status status) {
    registry.counter("spinagent.agent.sessions.ended", "code", status.getCode().name()).increment();
  }

  private static String type(Enum<?> bodyCase) {
    return bodyCase.name().toLowerCase(Locale.ROOT);
  }
}
