package io.spinagent.agent.stream;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AgentChannelGrpc.AgentChannelStub;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.Heartbeat;
import io.spinagent.protocol.v1.Hello;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.RefusedChange;
import io.spinagent.protocol.v1.ResyncRequest;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.Welcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code AgentChannel.Connect} stream, from Hello to its end: the handshake, heartbeats,
 * acknowledgements, decisions and commands from the plugin, and the outbox written out through an
 * {@link OutboxSender}. Ends exactly once, reporting how to {@link Events#ended}; reconnecting is
 * the {@link AgentStreamClient}'s job.
 *
 * <p>Every method runs on the stream's single thread (gRPC's callbacks are delivered there too), so
 * the session needs no locks.
 */
final class ChannelSession implements ClientResponseObserver<AgentMessage, PluginMessage> {

  private static final Logger log = LoggerFactory.getLogger(ChannelSession.class);

  /** Used when a plugin sends no interval; the plugin's own default. */
  private static final int DEFAULT_HEARTBEAT_SECONDS = 10;

  /**
   * The plugin ends a session silent for three intervals; this side applies the same rule, counting
   * frames of any type. A version 2 plugin sends heartbeats on its own, whether or not it is
   * reading (a busy plugin stops reading); a version 1 plugin answers this agent's heartbeats when
   * it reads them, so with it a plugin that stops reading for three intervals ends the session.
   */
  static final int SILENT_INTERVALS = 3;

  /**
   * How long Hello may go unanswered. Without it, a connection that opens but never carries bytes
   * (a stalled proxy, a hung replica) would hold the agent until TCP gave up.
   */
  static final Duration WELCOME_TIMEOUT = Duration.ofSeconds(20);

  /** What the session reports to its client. */
  interface Events {
    void welcomed(ChannelSession session, Welcome welcome);

    void decided(ChannelSession session, AccountDecision decision);

    /** Version 2: the plugin asks for a complete listing of some kinds of an account. */
    void resyncRequested(ChannelSession session, ResyncRequest request);

    void tunnel(ChannelSession session, TunnelFrame frame);

    /** A command other than Disconnect; its result goes back with {@link ChannelSession#answer}. */
    void command(ChannelSession session, Command command);

    /**
     * The stream ended.
     *
     * @param reconnectAfter the least delay the plugin asked for before reconnecting, or zero
     */
    void ended(ChannelSession session, Status status, boolean wasWelcomed, Duration reconnectAfter);
  }

  private final String agentId;
  private final Hello hello;
  private final Outbox outbox;
  private final Supplier<List<String>> streamingAccounts;
  private final Events events;
  private final StreamMetrics metrics;
  private final ScheduledExecutorService streamThread;
  private final long openedAtNanos = System.nanoTime();

  private ClientCallStreamObserver<AgentMessage> stream;
  private OutboxSender sender;
  private ScheduledFuture<?> heartbeats;
  private ScheduledFuture<?> welcomeTimeout;
  private boolean welcomed;
  private boolean ended;
  private long lastReceivedNanos = System.nanoTime();
  private Duration reconnectAfter = Duration.ZERO;

  ChannelSession(
      Hello hello,
      Outbox outbox,
      Supplier<List<String>> streamingAccounts,
      Events events,
      StreamMetrics metrics,
      ScheduledExecutorService streamThread) {
    this.agentId = hello.getAgentId();
    this.hello = hello;
    this.outbox = outbox;
    this.streamingAccounts = streamingAccounts;
    this.events = events;
    this.metrics = metrics;
    this.streamThread = streamThread;
  }

  /** Opens the stream and sends Hello. */
  void open(AgentChannelStub stub) {
    stub.connect(this);
    send(AgentMessage.newBuilder().setHello(hello).build());
    welcomeTimeout =
        streamThread.schedule(
            () -> {
              if (!welcomed && !ended) {
                String reason =
                    "no Welcome from Clouddriver within "
                        + WELCOME_TIMEOUT.toSeconds()
                        + "s of Hello";
                stream.cancel(reason, null);
                end(Status.UNAVAILABLE.withDescription(reason));
              }
            },
            WELCOME_TIMEOUT.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<AgentMessage> requestStream) {
    this.stream = requestStream;
    requestStream.setOnReadyHandler(this::drain);
  }

  /** The Hello this session opened with: the accounts Clouddriver was told about first. */
  Hello hello() {
    return hello;
  }

  Duration age() {
    return Duration.ofNanos(System.nanoTime() - openedAtNanos);
  }

  /** Writes what the outbox holds for streamed accounts, as far as flow control allows. */
  void drain() {
    if (welcomed && !ended) {
      sender.drain();
    }
  }

  /** Sends a frame other than changes (AccountsChanged, AccountStatus), if the session is up. */
  void sendControl(AgentMessage message) {
    if (welcomed && !ended) {
      send(message);
    }
  }

  /** Sends a command's result, if the session that received the command is still up. */
  void answer(CommandResult result) {
    sendControl(AgentMessage.newBuilder().setCommandResult(result).build());
  }

  /** Ends the session from this side, e.g. when the agent stops. */
  void cancel(String reason) {
    if (ended) {
      return;
    }
    stream.cancel(reason, null);
    end(Status.CANCELLED.withDescription(reason));
  }

  @Override
  public void onNext(PluginMessage message) {
    if (ended) {
      return;
    }
    lastReceivedNanos = System.nanoTime();
    metrics.received(message);
    switch (message.getBodyCase()) {
      case WELCOME -> welcome(message.getWelcome());
      case DECISIONS -> {
        message
            .getDecisions()
            .getAccountsList()
            .forEach(decision -> events.decided(this, decision));
        drain();
      }
      case ACK -> {
        metrics.acknowledged();
        message.getAck().getRefusedList().forEach(r -> refused(message.getAck().getAccount(), r));
        int released =
            outbox.acknowledge(message.getAck().getAccount(), message.getAck().getSequence());
        if (log.isDebugEnabled()) {
          log.debug(
              "Agent '{}': Clouddriver committed account '{}' up to sequence {} ({} entries"
                  + " released)",
              agentId,
              message.getAck().getAccount(),
              message.getAck().getSequence(),
              released);
        }
      }
      case RESYNC_REQUEST -> events.resyncRequested(this, message.getResyncRequest());
      case HEARTBEAT -> {
        // Liveness only: lastReceivedNanos was updated above.
      }
      case COMMAND -> command(message.getCommand());
      case TUNNEL -> events.tunnel(this, message.getTunnel());
      // A frame type added to the protocol after this agent was built: ignored, as the protocol's
      // compatibility rules allow.
      case BODY_NOT_SET ->
          log.debug("Agent '{}': ignoring a frame of a type this agent does not know", agentId);
    }
  }

  @Override
  public void onError(Throwable error) {
    end(Status.fromThrowable(error));
  }

  @Override
  public void onCompleted() {
    end(Status.UNAVAILABLE.withDescription("Clouddriver ended the stream"));
  }

  private void welcome(Welcome welcome) {
    if (welcomed) {
      protocolError("Clouddriver sent Welcome twice");
      return;
    }
    if (!hello.getProtocolVersionsList().contains(welcome.getProtocolVersion())) {
      protocolError(
          "Clouddriver chose protocol version "
              + welcome.getProtocolVersion()
              + ", which this agent did not offer (it speaks "
              + hello.getProtocolVersionsList()
              + ")");
      return;
    }
    welcomed = true;
    int version = welcome.getProtocolVersion();
    sender = new OutboxSender(outbox, streamingAccounts, stream, this::send, version);
    int interval =
        welcome.getHeartbeatIntervalSeconds() > 0
            ? welcome.getHeartbeatIntervalSeconds()
            : DEFAULT_HEARTBEAT_SECONDS;
    heartbeats =
        streamThread.scheduleAtFixedRate(
            () -> {
              // An exception would silently cancel the schedule, and with it the session's liveness
              // check.
              try {
                heartbeat(interval);
              } catch (RuntimeException e) {
                log.error("Agent '{}': sending a heartbeat failed", agentId, e);
              }
            },
            interval,
            interval,
            TimeUnit.SECONDS);
    events.welcomed(this, welcome);
    drain();
  }

  /** Sends a heartbeat, or ends a session Clouddriver has been silent on for too long. */
  private void heartbeat(int intervalSeconds) {
    if (ended) {
      return;
    }
    long silentSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - lastReceivedNanos);
    if (silentSeconds >= (long) SILENT_INTERVALS * intervalSeconds) {
      String reason =
          "no frame from Clouddriver for "
              + silentSeconds
              + "s (limit "
              + SILENT_INTERVALS * intervalSeconds
              + "s, three heartbeat intervals)";
      stream.cancel(reason, null);
      end(Status.UNAVAILABLE.withDescription(reason));
      return;
    }
    send(
        AgentMessage.newBuilder()
            .setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(System.currentTimeMillis()))
            .build());
  }

  /**
   * A change the plugin committed as "not stored": sending it again would not help, so it is only
   * logged and counted. The operator fixes the object (or the plugin's limits).
   */
  private void refused(String account, RefusedChange change) {
    metrics.refused();
    log.warn(
        "Agent '{}': Clouddriver did not store account '{}' {} {}{} (sequence {}): {}",
        agentId,
        account,
        change.getKind().getGroup().isEmpty()
            ? change.getKind().getKind()
            : change.getKind().getKind() + "." + change.getKind().getGroup(),
        change.getNamespace().isEmpty() ? "" : change.getNamespace() + "/",
        change.getName(),
        change.getSequence(),
        change.getReason());
  }

  private void command(Command command) {
    if (command.getCommandCase() == Command.CommandCase.DISCONNECT) {
      var disconnect = command.getDisconnect();
      metrics.commandAnswered(command.getCommandCase(), true);
      reconnectAfter = Duration.ofSeconds(disconnect.getReconnectAfterSeconds());
      log.info(
          "Agent '{}': Clouddriver asked this agent to disconnect ({}); reconnecting in at least"
              + " {}s",
          agentId,
          disconnect.getReason(),
          disconnect.getReconnectAfterSeconds());
      send(
          AgentMessage.newBuilder()
              .setCommandResult(
                  CommandResult.newBuilder().setCommandId(command.getCommandId()).setOk(true))
              .build());
      stream.onCompleted();
      end(
          Status.UNAVAILABLE.withDescription(
              "Clouddriver asked to disconnect: " + disconnect.getReason()));
      return;
    }
    if (command.getCommandCase() == Command.CommandCase.COMMAND_NOT_SET) {
      // A command type added to the protocol after this agent was built.
      String error =
          "agent version "
              + hello.getAgentVersion()
              + " does not know this command; upgrade the agent";
      log.warn(
          "Agent '{}': refusing command {} from Clouddriver: {}",
          agentId,
          command.getCommandId(),
          error);
      metrics.commandAnswered(command.getCommandCase(), false);
      answer(
          CommandResult.newBuilder()
              .setCommandId(command.getCommandId())
              .setOk(false)
              .setError(error)
              .build());
      return;
    }
    events.command(this, command);
  }

  private void protocolError(String reason) {
    log.error(
        "Agent '{}': {}; closing the session. Is the Clouddriver plugin's version compatible with"
            + " this agent?",
        agentId,
        reason);
    stream.onError(Status.FAILED_PRECONDITION.withDescription(reason).asRuntimeException());
    end(Status.FAILED_PRECONDITION.withDescription(reason));
  }

  private void send(AgentMessage message) {
    if (ended) {
      return;
    }
    stream.onNext(message);
    metrics.sent(message);
  }

  private void end(Status status) {
    if (ended) {
      return;
    }
    ended = true;
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
    if (welcomeTimeout != null) {
      welcomeTimeout.cancel(false);
    }
    events.ended(this, status, welcomed, reconnectAfter);
  }
}
