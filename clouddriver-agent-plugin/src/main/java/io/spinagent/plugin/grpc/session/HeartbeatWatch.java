package io.spinagent.plugin.grpc.session;

import io.grpc.Status;
import io.spinagent.protocol.v1.Heartbeat;
import io.spinagent.protocol.v1.PluginMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Whether one agent is alive: when its last frame came, and whether its silence has grown past
 * three heartbeat intervals. Silence counts only while the session reads: a session that stopped
 * reading (its sink is behind) leaves the agent's heartbeats unread in the transport. Also the
 * plugin's own heartbeat frame and the interval an agent is told.
 */
final class HeartbeatWatch {

  private final Duration interval;
  private final Clock clock;
  private volatile Instant lastFrameAt;

  HeartbeatWatch(Duration interval, Clock clock) {
    this.interval = interval;
    this.clock = clock;
    this.lastFrameAt = clock.instant();
  }

  /** Runs {@code check} every interval on {@code scheduler}, until the future is cancelled. */
  ScheduledFuture<?> schedule(ScheduledExecutorService scheduler, Runnable check) {
    return scheduler.scheduleAtFixedRate(
        check, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A frame came from the agent. */
  void frameReceived() {
    lastFrameAt = clock.instant();
  }

  /**
   * How the session ends because the agent fell silent for more than three intervals; empty while
   * it has not. A session not {@code reading} counts no silence: it starts again from now.
   */
  Optional<Status> silence(boolean reading) {
    if (!reading) {
      lastFrameAt = clock.instant();
      return Optional.empty();
    }
    Duration silence = Duration.between(lastFrameAt, clock.instant());
    Duration limit = interval.multipliedBy(3);
    if (silence.compareTo(limit) <= 0) {
      return Optional.empty();
    }
    return Optional.of(
        Status.UNAVAILABLE.withDescription(
            "no frame from the agent for "
                + silence.toSeconds()
                + "s (heartbeat limit "
                + limit.toSeconds()
                + "s)"));
  }

  /** The plugin's heartbeat, stamped now. */
  PluginMessage heartbeat() {
    return PluginMessage.newBuilder()
        .setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(clock.millis()))
        .build();
  }

  /** The interval an agent is told, in whole seconds rounded up: told 0, it would use its own. */
  int intervalSeconds() {
    long millis = interval.toMillis();
    return (int) Math.max(1, (millis + 999) / 1000);
  }
}
