package io.spinagent.plugin.grpc.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.spinagent.plugin.accounts.AccountMember;
import io.spinagent.plugin.accounts.AgentLink;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.grpc.auth.AgentPeer;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountDecisions;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.AccountsChanged;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.ChangeBatch;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.Hello;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.protocol.v1.TunnelFrame;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent connection, as a state machine: the handshake, then the agent's frames in order, until
 * the one way of closing. Each frame is checked, then handed to the part whose job it is:
 *
 * <ul>
 *   <li>{@link Handshake}: what a Hello must say, and the Welcome;
 *   <li>{@link AccountClaims}: the accounts the session serves, and the decisions on them;
 *   <li>{@link ChangeBatchEntries} and {@link AccountIntake}: an account's entries, to its {@link
 *       AccountPipeline} under inbound flow control (the next frame is read only while fewer than
 *       {@code maxPendingBatches} batches wait for the sink, so a slow database slows this agent
 *       and nobody else);
 *   <li>{@link AgentCommands}: commands to the agent and their results;
 *   <li>{@link TunnelFrameRoute}: tunnel frames, to the tunnel;
 *   <li>{@link HeartbeatWatch}: whether the agent is alive;
 *   <li>{@link OutboundFrames}: everything sent, under outbound flow control.
 * </ul>
 */
public final class AgentSession implements StreamObserver<InboundFrame>, AccountMember, AgentLink {

  private static final Logger log = LoggerFactory.getLogger(AgentSession.class);

  private final String sessionId = UUID.randomUUID().toString();
  private final String peer;
  private final String principal;
  private final SessionContext context;
  private final OutboundFrames outbound;
  private final HeartbeatWatch heartbeat;
  private final ScheduledFuture<?> heartbeatCheck;
  private final AccountClaims claims;
  private final AccountIntake intake;
  private final AgentCommands commands;
  private final TunnelFrameRoute tunnel = new TunnelFrameRoute();

  /** Accounts whose late changes were dropped and logged, until the agent streams them again. */
  private final Set<String> lateAccounts = ConcurrentHashMap.newKeySet();

  private volatile String agentId;
  private volatile int protocolVersion;
  private volatile String agentVersion = "";
  private volatile String zoneId = "";
  private volatile Instant connectedAt;

  @GuardedBy("this")
  private boolean closed;

  private final DecisionOrder decisionOrder = new DecisionOrder(this::sendChanged);

  AgentSession(
      AgentPeer peer, ServerCallStreamObserver<PluginMessage> call, SessionContext context) {
    this.peer = peer.describe();
    this.principal = peer.principal();
    this.context = context;
    this.outbound =
        new OutboundFrames(
            call, context.settings().getMaxOutboundFrames(), context.metrics()::sent);
    this.heartbeat = new HeartbeatWatch(context.settings().getHeartbeatInterval(), context.clock());
    this.heartbeatCheck = heartbeat.schedule(context.scheduler(), this::checkHeartbeat);
    this.claims =
        new AccountClaims(
            this, this, context.accounts(), context.welcomeListener(), context.resumePoints());
    this.intake =
        new AccountIntake(
            context.settings().getMaxPendingBatches(),
            () -> call.request(1),
            (account, stalled, committed) ->
                new AccountPipeline(
                    account,
                    agentId,
                    context.sink(),
                    context.sinkExecutor(),
                    context.scheduler(),
                    context.settings().getMinCommitInterval(),
                    stalled,
                    committed),
            this::committed);
    this.commands = new AgentCommands(this::agentId, this::send);
    call.setOnCancelHandler(
        () -> close(Status.CANCELLED.withDescription("the agent's connection ended")));
    context.metrics().sessionOpened();
    call.request(1);
  }

  @Override
  public String agentId() {
    return agentId == null ? "(before hello from " + peer + ")" : agentId;
  }

  @Override
  public String sessionId() {
    return sessionId;
  }

  @Override
  public String principal() {
    return principal;
  }

  public String peer() {
    return peer;
  }

  /**
   * Hands this session's tunnel frames to {@code subscriber} from now on, until the session ends;
   * false when it has ended already. A session has at most one subscriber: the tunnel.
   */
  public boolean subscribeTunnel(TunnelFrameSubscriber subscriber) {
    return tunnel.subscribe(subscriber, agentId());
  }

  /** Sends a tunnel frame (of a Kubernetes API request relayed over this session) to the agent. */
  public void sendTunnel(TunnelFrame frame) {
    send(PluginMessage.newBuilder().setTunnel(frame).build());
  }

  public List<String> accounts() {
    return claims.names();
  }

  /** What the agent said of itself in its hello; empty strings before it. */
  public ConnectedAgent connectedAgent() {
    return new ConnectedAgent(
        agentId(),
        agentVersion,
        zoneId,
        peer,
        principal,
        sessionId,
        context.replicaId(),
        connectedAt,
        accounts());
  }

  @Override
  public String zoneId() {
    return zoneId;
  }

  /**
   * Sends a command; the future completes with the agent's result, or fails when the session ends
   * first or {@code timeout} passes.
   */
  @Override
  public CompletableFuture<CommandResult> command(Command.Builder command) {
    return commands.send(command);
  }

  @Override
  public void decisionChanged(AccountDecision decision) {
    decisionOrder.changed(decision);
  }

  private void sendChanged(AccountDecision decision) {
    claims.redecided(decision);
    sendDecisions(claims.resumable(List.of(decision), protocolVersion));
  }

  @Override
  public void onNext(InboundFrame frame) {
    heartbeat.frameReceived();
    context.metrics().received(frame.message(), frame.size());
    try {
      if (frame.problem() != null) {
        throw new ProtocolViolation(frame.problem());
      }
      dispatch(frame.message());
    } catch (ProtocolViolation violation) {
      log.warn("Closing session of agent '{}' ({}): {}", agentId(), peer, violation.getMessage());
      close(violation.status());
      return;
    }
    intake.readNext();
  }

  @Override
  public void onError(Throwable error) {
    close(Status.fromThrowable(error));
  }

  @Override
  public void onCompleted() {
    close(Status.OK);
  }

  /** Ends the session: the agent's accounts lose it, and its stream ends with {@code status}. */
  public void close(Status status) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List<AccountPipeline> stopped = intake.close();
    heartbeatCheck.cancel(false);
    String reason = "agent '" + agentId() + "' disconnected (" + describe(status) + ")";
    commands.sessionEnded(reason);
    tunnel.close(reason);
    stopped.forEach(AccountPipeline::close);
    // Released before the stream ends, so an agent that reconnects at once finds its accounts
    // free instead of held by the session it just lost.
    if (agentId != null) {
      context.accounts().release(this);
      context.sessions().unregister(this);
    }
    outbound.close(status);
    context.metrics().sessionClosed(status);
    if (status.isOk() || status.getCode() == Status.Code.CANCELLED) {
      log.info("Agent '{}' ({}) disconnected: {}", agentId(), peer, describe(status));
    } else {
      log.warn("Agent '{}' ({}) disconnected: {}", agentId(), peer, describe(status));
    }
  }

  private void dispatch(AgentMessage message) {
    if (agentId == null && message.getBodyCase() != AgentMessage.BodyCase.HELLO) {
      throw ProtocolViolation.precondition(
          "the first frame must be hello, got "
              + message.getBodyCase().name().toLowerCase(Locale.ROOT));
    }
    switch (message.getBodyCase()) {
      case HELLO -> handshake(message.getHello());
      case CHANGES -> changes(message.getChanges());
      case RESYNC -> resync(message.getResync());
      case ACCOUNTS_CHANGED -> accountsChanged(message.getAccountsChanged());
      case ACCOUNT_STATUS -> {
        var status = message.getAccountStatus();
        if (status.getHealth() == AccountHealth.ACCOUNT_HEALTH_FAILED
            && claims.serves(status.getAccount())) {
          context.accounts().recordError(status.getAccount(), status.getError());
        }
      }
      case HEARTBEAT -> {
        if (protocolVersion < 2) {
          send(heartbeat.heartbeat()); // a version 2 plugin sends its own, whether it reads or not
        }
      }
      case TUNNEL -> tunnel.received(message.getTunnel());
      case COMMAND_RESULT -> commands.answered(message.getCommandResult());
      case BODY_NOT_SET -> throw ProtocolViolation.invalid("empty frame: no body set");
    }
  }

  private void handshake(Hello hello) {
    if (agentId != null) {
      throw ProtocolViolation.precondition("hello sent twice");
    }
    Handshake.Greeting greeting = Handshake.check(hello);
    agentId = greeting.agentId();
    protocolVersion = greeting.protocolVersion();
    agentVersion = hello.getAgentVersion();
    zoneId = hello.getZoneId();
    connectedAt = context.clock().instant();
    register();
    decisionOrder.claim(() -> welcome(hello, greeting));
    try {
      context.welcomeListener().welcomed(this);
    } catch (RuntimeException e) {
      log.error(
          "Telling {} that agent '{}' connected failed",
          context.welcomeListener().getClass().getSimpleName(),
          agentId,
          e);
    }
  }

  private void welcome(Hello hello, Handshake.Greeting greeting) {
    List<AccountDecision> decisions = claims.claim(hello.getAccountsList());
    PluginMessage welcome =
        Handshake.welcome(
            protocolVersion,
            sessionId,
            context.replicaId(),
            heartbeat.intervalSeconds(),
            claims.resumable(decisions, protocolVersion));
    log.info(
        "Agent '{}' {} connected from {} as principal '{}' (protocol v{}, accounts {})",
        agentId,
        hello.getAgentVersion(),
        peer,
        principal,
        protocolVersion,
        greeting.accountNames());
    send(welcome);
  }

  /**
   * Registers this session as its agent's one session of this replica. A session still holding the
   * agent id whose connection is gone gives way; a live one keeps it, and this session ends.
   */
  private void register() {
    Optional<AgentSession> existing = context.sessions().register(this);
    if (existing.isPresent() && existing.get().outbound.transportGone()) {
      // Its connection is gone but its cancellation has not been handled yet (e.g. its thread is
      // still busy): the agent reconnecting is the same agent, so the dead session gives way now.
      log.info(
          "Agent '{}' reconnected from {}; releasing its previous session ({}), whose connection is"
              + " gone",
          agentId,
          peer,
          existing.get().peer());
      existing.get().close(Status.CANCELLED.withDescription("the agent's connection ended"));
      existing = context.sessions().register(this);
    }
    if (existing.isPresent()) {
      String other = existing.get().peer();
      String refused = agentId;
      agentId = null; // never registered: close() must not release the other session's claims
      throw new ProtocolViolation(
          Status.ALREADY_EXISTS.withDescription(
              "agent id '"
                  + refused
                  + "' is already connected from "
                  + other
                  + "; give each agent its own agent.id"));
    }
  }

  private void accountsChanged(AccountsChanged changed) {
    // Removals first, so a name both removed and added in one frame (a changed account) ends up
    // served.
    for (String name : changed.getRemovedList()) {
      claims.forget(name);
      intake.remove(name);
      context.accounts().withdraw(this, name);
    }
    for (AccountInfo account : changed.getAddedList()) {
      FrameValidation.validate(account);
    }
    decisionOrder.claim(
        () -> {
          List<AccountDecision> decisions = claims.claim(changed.getAddedList());
          if (!decisions.isEmpty()) {
            sendDecisions(claims.resumable(decisions, protocolVersion));
          }
        });
  }

  private void changes(ChangeBatch batch) {
    if (claims.streams(batch.getAccount(), "changes")) {
      lateAccounts.remove(batch.getAccount());
      intake.submit(batch.getAccount(), ChangeBatchEntries.of(batch, protocolVersion));
    } else {
      dropped(batch.getAccount(), batch.getChangesCount());
    }
  }

  private void resync(ResyncMarker marker) {
    String account = marker.getAccount();
    if (!claims.streams(account, "resync")) {
      dropped(account, 0);
      return;
    }
    FrameValidation.validate(marker, account);
    intake.submit(account, List.of(new SinkEntry.Resync(marker)));
  }

  /**
   * Objects of an account this agent no longer streams arrived late: dropped, for that account
   * alone; the session goes on.
   */
  private void dropped(String account, int changes) {
    context.metrics().droppedLate(changes);
    if (lateAccounts.add(account)) {
      log.info(
          "Agent '{}': dropping its late changes of account '{}', which it no longer streams"
              + " (the account is being removed, switched off or handed to another agent)",
          agentId(),
          account);
    }
  }

  /**
   * A batch of the account is committed: the registry learns how far, and which kinds are listed;
   * the agent gets its acknowledgement, and a request for a new listing of kinds this replica could
   * not finish.
   */
  private void committed(String account, SinkBatch batch, CommitOutcome outcome) {
    context.accounts().recordCommitted(this, account, batch.lastSequence());
    Set<Kind> relist = Set.copyOf(outcome.relistRequired());
    List<Kind> listed = new ArrayList<>();
    int changes = 0;
    for (SinkEntry entry : batch.entries()) {
      if (entry instanceof SinkEntry.Resync resync
          && resync.marker().getPhase() == ResyncPhase.RESYNC_PHASE_END
          && !relist.contains(resync.marker().getKind())) {
        listed.add(resync.marker().getKind());
      } else if (entry instanceof SinkEntry.Change) {
        changes++;
      }
    }
    if (!listed.isEmpty()) {
      context.accounts().kindsInSync(this, account, listed);
    }
    context.metrics().committed(changes);
    if (log.isDebugEnabled()) {
      log.debug(
          "Account '{}' (agent '{}'): committed up to sequence {} ({} entries, {} changes, {}"
              + " refused)",
          account,
          agentId(),
          batch.lastSequence(),
          batch.entries().size(),
          changes,
          outcome.refused().size());
    }
    // The sink logged and counted what it refused; the agent hears of it on the Ack.
    outbound.acknowledge(account, batch.lastSequence(), outcome.refused());
    if (!relist.isEmpty()) {
      requestListing(account, outcome.relistRequired(), batch.lastSequence());
    }
  }

  /**
   * Asks the agent for a new complete listing of kinds whose listing this replica cannot finish (it
   * saw the END but not the BEGIN: it restarted, or the account moved here, mid-listing).
   */
  private void requestListing(String account, List<Kind> kinds, long committedSequence) {
    log.info(
        "Account '{}' (agent '{}'): asking for a new listing of {}: {}",
        account,
        agentId(),
        kinds.stream().map(Kind::getKind).toList(),
        ListingRequests.REASON);
    context.metrics().resyncRequested();
    send(ListingRequests.frame(account, kinds, committedSequence, protocolVersion));
  }

  /**
   * The account named {@code account} is gone: if this agent's claim of that name was refused, it
   * is claimed again, and the agent hears the new decision as it would after a claim.
   */
  void claimAgain(String account) {
    decisionOrder.claim(
        () ->
            claims
                .claimAgain(account)
                .ifPresent(
                    decision -> {
                      log.info(
                          "Agent '{}': account '{}' is free again; its claim is granted",
                          agentId(),
                          account);
                      sendDecisions(claims.resumable(List.of(decision), protocolVersion));
                    }));
  }

  private void sendDecisions(List<AccountDecision> decisions) {
    send(
        PluginMessage.newBuilder()
            .setDecisions(AccountDecisions.newBuilder().addAllAccounts(decisions))
            .build());
  }

  private void send(PluginMessage message) {
    if (!outbound.send(message)) {
      close(
          Status.RESOURCE_EXHAUSTED.withDescription(
              "agent is not reading its stream: more than "
                  + context.settings().getMaxOutboundFrames()
                  + " frames waiting"));
    }
  }

  /**
   * Every heartbeat interval: a version 2 session sends its heartbeat, whether or not it reads the
   * agent's frames; and a session that heard nothing for three intervals while reading ends.
   */
  private void checkHeartbeat() {
    if (protocolVersion >= 2) {
      send(heartbeat.heartbeat());
    }
    heartbeat.silence(!intake.readingDeferred()).ifPresent(this::close);
  }

  private static String describe(Status status) {
    return status.getCode()
        + (status.getDescription() == null ? "" : ": " + status.getDescription());
  }
}
