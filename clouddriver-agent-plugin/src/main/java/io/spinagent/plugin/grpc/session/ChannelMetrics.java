package io.spinagent.plugin.grpc.session;

import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.PluginMessage;
import java.util.Locale;

/**
 * The agent channel's meters, in Clouddriver's Micrometer registry. Names are documented in
 * docs/configuration.md#metrics.
 */
public final class ChannelMetrics {

  private final MeterRegistry registry;
  private final Counter bytesReceived;
  private final Counter bytesSent;
  private final Counter sessionsOpened;
  private final Counter changesCommitted;
  private final Counter resyncRequests;
  private final Counter droppedLate;

  public ChannelMetrics(
      MeterRegistry registry, SessionRegistry sessions, AccountRegistry accounts) {
    this.registry = registry;
    this.bytesReceived = registry.counter("spinagent.bytes.received");
    this.bytesSent = registry.counter("spinagent.bytes.sent");
    this.sessionsOpened = registry.counter("spinagent.sessions.opened");
    this.changesCommitted = registry.counter("spinagent.changes.committed");
    this.resyncRequests = registry.counter("spinagent.resync.requests");
    this.droppedLate = registry.counter("spinagent.changes.dropped.late");
    registry.gauge("spinagent.agents.connected", sessions, SessionRegistry::size);
    for (AccountState state : AccountState.values()) {
      if (state != AccountState.REMOVED) {
        registry.gauge(
            "spinagent.accounts",
            io.micrometer.core.instrument.Tags.of("state", state.name()),
            accounts,
            a -> a.all().stream().filter(account -> account.state() == state).count());
      }
    }
    for (AccountRegistry.RefusedClaim reason : AccountRegistry.RefusedClaim.values()) {
      FunctionCounter.builder(
              "spinagent.accounts.claims.refused", accounts, a -> a.refusedClaims(reason))
          .tag("reason", reason.name().toLowerCase(Locale.ROOT))
          .description("Account claims of agents refused, by reason")
          .register(registry);
    }
  }

  /** A frame arrived; {@code message} is null when it could not be parsed. */
  public void received(AgentMessage message, int size) {
    String type = message == null ? "invalid" : frameType(message.getBodyCase());
    registry.counter("spinagent.frames.received", "type", type).increment();
    bytesReceived.increment(size);
  }

  public void sent(PluginMessage message) {
    registry.counter("spinagent.frames.sent", "type", frameType(message.getBodyCase())).increment();
    bytesSent.increment(message.getSerializedSize());
  }

  public void sessionOpened() {
    sessionsOpened.increment();
  }

  public void sessionClosed(Status status) {
    registry.counter("spinagent.sessions.closed", "status", status.getCode().name()).increment();
  }

  public void committed(int changes) {
    changesCommitted.increment(changes);
  }

  /** Changes of an account the agent no longer streams, dropped unstored and unacknowledged. */
  public void droppedLate(int changes) {
    droppedLate.increment(changes);
  }

  /** The plugin asked an agent to list kinds of an account again. */
  public void resyncRequested() {
    resyncRequests.increment();
  }

  private static String frameType(Enum<?> bodyCase) {
    return bodyCase.name().toLowerCase(Locale.ROOT);
  }
}
