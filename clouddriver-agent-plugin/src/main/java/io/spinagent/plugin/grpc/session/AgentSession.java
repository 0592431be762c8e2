package io.spinagent.plugin.grpc.session;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.spinagent.plugin.accounts.AccountMember;
import io.spinagent.plugin.accounts.AgentLink;
import io.spinagent.plugin.accounts.BindingUnavailableException;
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
import io.spinagent.protocol.v1.Heartbeat;
import io.spinagent.protocol.v1.Hello;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.ResumePoint;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.protocol.v1.ResyncRequest;
import io.spinagent.protocol.v1.Role;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.WatchProgress;
import io.spinagent.protocol.v1.Welcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent connection: the handshake, then the agent's frames in order. Inbound flow control is
 * manual: the next frame is requested only while fewer than {@code maxPendingBatches} batches wait
 * for the sink, so a slow database slows this agent (through HTTP/2 flow control, all the way back
 * to its outbox) and nobody else.
 *
 * <p>Longer than the project's classes usually are, on purpose: it is the one state machine of an
 * agent connection (handshake, per-account intake under flow control, decisions, commands, tunnel
 * frames, heartbeats), whose parts share the session's lock and its one way of closing. What stands
 * on its own lives apart: frame checks ({@link FrameValidation}), commands awaiting results ({@link
 * PendingCommands}), what is sent ({@link OutboundFrames}) and commits ({@link AccountPipeline}).
 */
public final class AgentSession implements StreamObserver<InboundFrame>, AccountMember, AgentLink {

  private static final Logger log = LoggerFactory.getLogger(AgentSession.class);

  /**
   * The largest command sent to an agent: agents accept frames of up to 16 MiB from Clouddriver
   * ({@code ClouddriverConnection.MAX_INBOUND_MESSAGE_BYTES} in the agent).
   */
  static final int MAX_COMMAND_BYTES = 16 * 1024 * 1024;

  private final String sessionId = UUID.randomUUID().toString();
  private final String peer;
  private final String principal;
  private final ServerCallStreamObserver<PluginMessage> call;
  private final SessionContext context;
  private final OutboundFrames outbound;
  private final ScheduledFuture<?> heartbeatCheck;

  private volatile Instant lastFrameAt;
  private volatile String agentId;
  private volatile int protocolVersion;
  private volatile String agentVersion = "";
  private volatile String zoneId = "";
  private volatile Instant connectedAt;
  private final PendingCommands commands = new PendingCommands();

  // Guarded by this.
  private final Map<String, AccountPipeline> pipelines = new HashMap<>();
  private final Map<String, Long> lastReceivedSequence = new HashMap<>();
  private final Set<String> accounts = new LinkedHashSet<>();
  private int pendingBatches;
  private boolean requestDeferred;
  private boolean closed;

  // Set under this; read without it on every tunnel frame.
  private volatile TunnelFrameSubscriber tunnelSubscriber;

  AgentSession(
      AgentPeer peer, ServerCallStreamObserver<PluginMessage> call, SessionContext context) {
    this.peer = peer.describe();
    this.principal = peer.principal();
    this.call = call;
    this.context = context;
    this.outbound =
        new OutboundFrames(
            call, context.settings().getMaxOutboundFrames(), context.metrics()::sent);
    Clock clock = context.clock();
    this.lastFrameAt = clock.instant();
    Duration interval = context.settings().getHeartbeatInterval();
    this.heartbeatCheck =
        context
            .scheduler()
            .scheduleAtFixedRate(
                this::checkHeartbeat,
                interval.toMillis(),
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
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
  public synchronized boolean subscribeTunnel(TunnelFrameSubscriber subscriber) {
    if (closed) {
      return false;
    }
    if (tunnelSubscriber != null) {
      throw new IllegalStateException(
          "agent '" + agentId() + "': this session's tunnel frames already have a subscriber");
    }
    tunnelSubscriber = subscriber;
    return true;
  }

  /** Sends a tunnel frame (of a Kubernetes API request relayed over this session) to the agent. */
  public void sendTunnel(TunnelFrame frame) {
    send(PluginMessage.newBuilder().setTunnel(frame).build());
  }

  public synchronized List<String> accounts() {
    return List.copyOf(accounts);
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
    PendingCommands.Pending pending = commands.register();
    synchronized (this) {
      if (closed) {
        pending
            .result()
            .completeExceptionally(
                new IllegalStateException("agent '" + agentId() + "' disconnected"));
        return pending.result();
      }
    }
    PluginMessage message =
        PluginMessage.newBuilder().setCommand(command.setCommandId(pending.id())).build();
    int size = message.getSerializedSize();
    if (size > MAX_COMMAND_BYTES) {
      // Sent, it would end the agent's session (the agent refuses frames over its limit) and
      // every account it serves would be orphaned until it reconnects.
      pending
          .result()
          .completeExceptionally(
              new IllegalArgumentException(
                  "the command is "
                      + size
                      + " bytes, over the "
                      + MAX_COMMAND_BYTES
                      + " bytes an agent accepts in one frame"));
      return pending.result();
    }
    send(message);
    return pending.result();
  }

  @Override
  public void decisionChanged(AccountDecision decision) {
    send(
        PluginMessage.newBuilder()
            .setDecisions(
                AccountDecisions.newBuilder().addAllAccounts(resumable(List.of(decision))))
            .build());
  }

  @Override
  public void onNext(InboundFrame frame) {
    lastFrameAt = context.clock().instant();
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
    requestNext();
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
    List<AccountPipeline> stopped;
    TunnelFrameSubscriber tunnel;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stopped = List.copyOf(pipelines.values());
      tunnel = tunnelSubscriber;
    }
    heartbeatCheck.cancel(false);
    commands.failAll("agent '" + agentId() + "' disconnected (" + describe(status) + ")");
    if (tunnel != null) {
      tunnel.sessionClosed("agent '" + agentId() + "' disconnected (" + describe(status) + ")");
    }
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
          "the first frame must be hello, got " + message.getBodyCase().name().toLowerCase());
    }
    switch (message.getBodyCase()) {
      case HELLO -> handshake(message.getHello());
      case CHANGES -> changes(message.getChanges());
      case RESYNC -> resync(message.getResync());
      case ACCOUNTS_CHANGED -> accountsChanged(message.getAccountsChanged());
      case ACCOUNT_STATUS -> {
        var status = message.getAccountStatus();
        if (status.getHealth() == AccountHealth.ACCOUNT_HEALTH_FAILED
            && owns(status.getAccount())) {
          context.accounts().recordError(status.getAccount(), status.getError());
        }
      }
      case HEARTBEAT -> {
        if (protocolVersion < 2) {
          sendHeartbeat(); // a version 2 plugin sends its own, whether it reads or not
        }
      }
      case TUNNEL -> {
        TunnelFrameSubscriber tunnel = tunnelSubscriber;
        if (tunnel != null) {
          tunnel.received(message.getTunnel());
        }
      }
      case COMMAND_RESULT -> {
        CommandResult result = message.getCommandResult();
        if (!commands.complete(result)) {
          log.debug(
              "Agent '{}' answered command {}, which is no longer awaited",
              agentId,
              result.getCommandId());
        }
      }
      case BODY_NOT_SET -> throw ProtocolViolation.invalid("empty frame: no body set");
    }
  }

  private void handshake(Hello hello) {
    if (agentId != null) {
      throw ProtocolViolation.precondition("hello sent twice");
    }
    if (hello.getAgentId().isBlank()) {
      throw ProtocolViolation.invalid("hello.agent_id is required");
    }
    int version = ProtocolVersions.negotiate(hello.getProtocolVersionsList());
    if (version == 0) {
      throw ProtocolViolation.precondition(
          "agent '"
              + hello.getAgentId()
              + "' speaks protocol versions "
              + hello.getProtocolVersionsList()
              + ", this plugin supports "
              + ProtocolVersions.SUPPORTED
              + ": upgrade the agent or the plugin");
    }
    Set<String> names = new LinkedHashSet<>();
    for (AccountInfo account : hello.getAccountsList()) {
      FrameValidation.validate(account);
      if (!names.add(account.getName())) {
        throw ProtocolViolation.invalid("hello lists account '" + account.getName() + "' twice");
      }
    }
    agentId = hello.getAgentId();
    protocolVersion = version;
    agentVersion = hello.getAgentVersion();
    zoneId = hello.getZoneId();
    connectedAt = context.clock().instant();
    Optional<AgentSession> existing = context.sessions().register(this);
    if (existing.isPresent() && existing.get().outbound.transportGone()) {
      // Its connection is gone but its cancellation has not been handled yet (e.g. its thread is
      // still busy): the agent reconnecting is the same agent, so the dead session gives way now.
      log.info(
          "Agent '{}' reconnected from {}; releasing its previous session ({}), whose connection is"
              + " gone",
          hello.getAgentId(),
          peer,
          existing.get().peer());
      existing.get().close(Status.CANCELLED.withDescription("the agent's connection ended"));
      existing = context.sessions().register(this);
    }
    if (existing.isPresent()) {
      String other = existing.get().peer();
      agentId = null; // never registered: close() must not release the other session's claims
      throw new ProtocolViolation(
          Status.ALREADY_EXISTS.withDescription(
              "agent id '"
                  + hello.getAgentId()
                  + "' is already connected from "
                  + other
                  + "; give each agent its own agent.id"));
    }
    Welcome.Builder welcome =
        Welcome.newBuilder()
            .setProtocolVersion(version)
            .setSessionId(sessionId)
            .setReplicaId(context.replicaId())
            .setHeartbeatIntervalSeconds(heartbeatIntervalSeconds());
    List<AccountDecision> decisions = claim(hello.getAccountsList());
    welcome.addAllAccounts(resumable(decisions));
    log.info(
        "Agent '{}' {} connected from {} as principal '{}' (protocol v{}, accounts {})",
        agentId,
        hello.getAgentVersion(),
        peer,
        principal,
        version,
        names);
    send(PluginMessage.newBuilder().setWelcome(welcome).build());
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

  /**
   * Claims accounts, in the order given: first what the accounts layer refuses outright (a dynamic
   * account no stored account owns), then the registry's decision on the rest. An agent whose
   * claims cannot be decided now (the bindings cannot be read) is disconnected with UNAVAILABLE, so
   * that it reconnects and claims them again.
   */
  private List<AccountDecision> claim(List<AccountInfo> claimed) {
    if (claimed.isEmpty()) {
      return List.of();
    }
    Map<String, AccountDecision> refused = new HashMap<>();
    List<AccountInfo> toDecide = new ArrayList<>();
    for (AccountInfo account : claimed) {
      Optional<String> refusal = context.welcomeListener().refusal(this, account);
      if (refusal.isPresent()) {
        refused.put(
            account.getName(),
            AccountDecision.newBuilder()
                .setAccount(account.getName())
                .setAccepted(false)
                .setReason(refusal.get())
                .build());
      } else {
        toDecide.add(account);
      }
    }
    List<AccountDecision> decided;
    try {
      decided = toDecide.isEmpty() ? List.of() : context.accounts().claimAll(this, toDecide);
    } catch (BindingUnavailableException e) {
      throw new ProtocolViolation(
          Status.UNAVAILABLE.withDescription(
              e.getMessage() + "; reconnect to claim the accounts again"));
    }
    synchronized (this) {
      for (AccountDecision decision : decided) {
        if (decision.getAccepted()) {
          accounts.add(decision.getAccount());
        }
      }
    }
    Iterator<AccountDecision> next = decided.iterator();
    List<AccountDecision> decisions = new ArrayList<>(claimed.size());
    for (AccountInfo account : claimed) {
      AccountDecision refusal = refused.get(account.getName());
      decisions.add(refusal != null ? refusal : next.next());
    }
    return decisions;
  }

  private void accountsChanged(AccountsChanged changed) {
    // Removals first, so a name both removed and added in one frame (a changed account) ends up
    // served.
    for (String name : changed.getRemovedList()) {
      AccountPipeline pipeline;
      synchronized (this) {
        accounts.remove(name);
        lastReceivedSequence.remove(name);
        pipeline = pipelines.remove(name);
      }
      if (pipeline != null) {
        releasePending(pipeline.close());
      }
      context.accounts().withdraw(this, name);
    }
    for (AccountInfo account : changed.getAddedList()) {
      FrameValidation.validate(account);
    }
    List<AccountDecision> decisions = claim(changed.getAddedList());
    if (!decisions.isEmpty()) {
      send(
          PluginMessage.newBuilder()
              .setDecisions(AccountDecisions.newBuilder().addAllAccounts(resumable(decisions)))
              .build());
    }
  }

  /**
   * Version 2: the decisions that make this agent stream an account carry the account's resume
   * points and no longer require a complete listing, and the kinds with a resume point count as in
   * sync. Version 1 decisions are returned as they are. The points of all accounts are read at
   * once; when they cannot be read, the agent lists every kind, as in version 1.
   */
  private List<AccountDecision> resumable(List<AccountDecision> decisions) {
    if (protocolVersion < 2) {
      return decisions;
    }
    Set<String> streamed =
        decisions.stream()
            .filter(d -> d.getAccepted() && d.getRole() == Role.ROLE_CACHING)
            .map(AccountDecision::getAccount)
            .collect(Collectors.toCollection(LinkedHashSet::new));
    if (streamed.isEmpty()) {
      return decisions;
    }
    Map<String, List<ResumePoint>> points;
    try {
      points = context.resumePoints().of(streamed);
    } catch (RuntimeException e) {
      log.warn(
          "Agent '{}': reading the resume points of {} failed, so it lists every kind: {}",
          agentId(),
          streamed,
          e.toString());
      return decisions;
    }
    List<AccountDecision> result = new ArrayList<>(decisions.size());
    for (AccountDecision decision : decisions) {
      if (!streamed.contains(decision.getAccount())) {
        result.add(decision);
        continue;
      }
      List<ResumePoint> resume = points.getOrDefault(decision.getAccount(), List.of());
      result.add(decision.toBuilder().setResyncRequired(false).addAllResumePoints(resume).build());
      if (!resume.isEmpty()) {
        context
            .accounts()
            .kindsInSync(
                this, decision.getAccount(), resume.stream().map(ResumePoint::getKind).toList());
      }
    }
    return result;
  }

  private void changes(ChangeBatch batch) {
    String account = batch.getAccount();
    requireStreaming(account, "changes");
    if (protocolVersion < 2 && (batch.getMarkersCount() > 0 || batch.getProgressCount() > 0)) {
      throw ProtocolViolation.invalid(
          "changes for account '"
              + account
              + "': resync markers and watch progress inside a batch need protocol version 2,"
              + " and this session speaks version "
              + protocolVersion);
    }
    List<SinkEntry> entries =
        new ArrayList<>(
            batch.getChangesCount() + batch.getMarkersCount() + batch.getProgressCount());
    for (int i = 0; i < batch.getChangesCount(); i++) {
      ObjectChange change = batch.getChanges(i);
      FrameValidation.validate(change, account, i);
      entries.add(new SinkEntry.Change(change));
    }
    for (ResyncMarker marker : batch.getMarkersList()) {
      FrameValidation.validate(marker, account);
      if (!marker.getAccount().isEmpty() && !marker.getAccount().equals(account)) {
        throw ProtocolViolation.invalid(
            "changes for account '"
                + account
                + "' carry a resync marker of account '"
                + marker.getAccount()
                + "'");
      }
      entries.add(new SinkEntry.Resync(marker.toBuilder().setAccount(account).build()));
    }
    for (WatchProgress progress : batch.getProgressList()) {
      FrameValidation.validate(progress, account);
      entries.add(new SinkEntry.Progress(progress));
    }
    if (batch.getMarkersCount() > 0 || batch.getProgressCount() > 0) {
      entries.sort(Comparator.comparingLong(SinkEntry::sequence));
      for (int i = 1; i < entries.size(); i++) {
        if (entries.get(i).sequence() == entries.get(i - 1).sequence()) {
          throw ProtocolViolation.invalid(
              "changes for account '"
                  + account
                  + "': sequence "
                  + entries.get(i).sequence()
                  + " is used twice in one batch");
        }
      }
    }
    submit(account, newEntries(account, entries));
  }

  private void resync(ResyncMarker marker) {
    String account = marker.getAccount();
    requireStreaming(account, "resync");
    FrameValidation.validate(marker, account);
    submit(account, newEntries(account, List.of(new SinkEntry.Resync(marker))));
  }

  private void submit(String account, List<SinkEntry> entries) {
    if (entries.isEmpty()) {
      return; // a replay of what this session already took
    }
    AccountPipeline pipeline;
    synchronized (this) {
      if (closed) {
        return;
      }
      pendingBatches++;
      pipeline =
          pipelines.computeIfAbsent(
              account,
              a ->
                  new AccountPipeline(
                      a,
                      agentId,
                      context.sink(),
                      context.sinkExecutor(),
                      context.scheduler(),
                      context.settings().getMinCommitInterval(),
                      (committed, frames, outcome) -> committed(a, committed, frames, outcome)));
    }
    pipeline.submit(new SinkBatch(account, entries));
  }

  private void committed(String account, SinkBatch batch, int frames, CommitOutcome outcome) {
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
    // The sink logged and counted what it refused; the agent hears of it on the Ack.
    outbound.acknowledge(account, batch.lastSequence(), outcome.refused());
    if (!relist.isEmpty()) {
      requestListing(account, outcome.relistRequired(), batch.lastSequence());
    }
    releasePending(frames);
  }

  /** Counts batches as no longer waiting for the cache, and reads on if reading was deferred. */
  private void releasePending(int batches) {
    boolean resume;
    synchronized (this) {
      pendingBatches -= batches;
      resume =
          requestDeferred && !closed && pendingBatches < context.settings().getMaxPendingBatches();
      if (resume) {
        requestDeferred = false;
      }
    }
    if (resume) {
      call.request(1);
    }
  }

  /**
   * Asks the agent for a new complete listing of kinds whose listing this replica cannot finish (it
   * saw the END but not the BEGIN: it restarted, or the account moved here, mid-listing). Version 1
   * agents know no ResyncRequest: they are told to list every kind.
   */
  private void requestListing(String account, List<Kind> kinds, long committedSequence) {
    String reason =
        "this replica saw the end of a listing whose beginning it did not see"
            + " (it restarted, or the account moved here, mid-listing)";
    log.info(
        "Account '{}' (agent '{}'): asking for a new listing of {}: {}",
        account,
        agentId(),
        kinds.stream().map(Kind::getKind).toList(),
        reason);
    context.metrics().resyncRequested();
    if (protocolVersion >= 2) {
      send(
          PluginMessage.newBuilder()
              .setResyncRequest(
                  ResyncRequest.newBuilder()
                      .setAccount(account)
                      .addAllKinds(kinds)
                      .setReason(reason))
              .build());
    } else {
      send(
          PluginMessage.newBuilder()
              .setDecisions(
                  AccountDecisions.newBuilder()
                      .addAccounts(
                          AccountDecision.newBuilder()
                              .setAccount(account)
                              .setAccepted(true)
                              .setRole(Role.ROLE_CACHING)
                              .setResyncRequired(true)
                              .setCommittedSequence(committedSequence)))
              .build());
    }
  }

  private void requestNext() {
    synchronized (this) {
      if (closed) {
        return;
      }
      if (pendingBatches >= context.settings().getMaxPendingBatches()) {
        requestDeferred = true;
        return;
      }
    }
    call.request(1);
  }

  /**
   * Sequences only grow within a session; entries (in sequence order) at or below the last one
   * taken are a replay.
   */
  private synchronized List<SinkEntry> newEntries(String account, List<SinkEntry> entries) {
    long last = lastReceivedSequence.getOrDefault(account, 0L);
    List<SinkEntry> fresh = new ArrayList<>(entries.size());
    for (SinkEntry entry : entries) {
      if (entry.sequence() > last) {
        fresh.add(entry);
        last = entry.sequence();
      }
    }
    lastReceivedSequence.put(account, last);
    return fresh;
  }

  private void requireStreaming(String account, String frame) {
    if (account.isEmpty()) {
      throw ProtocolViolation.invalid(frame + ": account is required");
    }
    if (!owns(account)) {
      throw ProtocolViolation.precondition(
          frame
              + " for account '"
              + account
              + "', which this agent did not register or was refused"
              + " (registered: "
              + accounts()
              + ")");
    }
    if (!context.accounts().isCaching(this, account)) {
      throw ProtocolViolation.precondition(
          frame
              + " for account '"
              + account
              + "', which this agent serves as "
              + Role.ROLE_STANDBY
              + ": only the caching agent streams objects");
    }
  }

  private synchronized boolean owns(String account) {
    return accounts.contains(account);
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

  /** Whole seconds, rounded up: an agent told 0 would fall back to its own default. */
  private int heartbeatIntervalSeconds() {
    long millis = context.settings().getHeartbeatInterval().toMillis();
    return (int) Math.max(1, (millis + 999) / 1000);
  }

  private void sendHeartbeat() {
    send(
        PluginMessage.newBuilder()
            .setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(context.clock().millis()))
            .build());
  }

  /**
   * Every heartbeat interval: a version 2 session sends its heartbeat, whether or not it reads the
   * agent's frames; and a session that heard nothing for three intervals while reading ends.
   */
  private void checkHeartbeat() {
    if (protocolVersion >= 2) {
      sendHeartbeat();
    }
    synchronized (this) {
      if (requestDeferred) {
        // We stopped reading (the sink is behind): the agent's heartbeats wait unread in the
        // transport, so silence says nothing about the agent.
        lastFrameAt = context.clock().instant();
        return;
      }
    }
    Duration silence = Duration.between(lastFrameAt, context.clock().instant());
    Duration limit = context.settings().getHeartbeatInterval().multipliedBy(3);
    if (silence.compareTo(limit) > 0) {
      close(
          Status.UNAVAILABLE.withDescription(
              "no frame from the agent for "
                  + silence.toSeconds()
                  + "s (heartbeat limit "
                  + limit.toSeconds()
                  + "s)"));
    }
  }

  private static String describe(Status status) {
    return status.getCode()
        + (status.getDescription() == null ? "" : ": " + status.getDescription());
  }
}
