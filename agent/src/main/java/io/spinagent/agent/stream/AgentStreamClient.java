package io.spinagent.agent.stream;

import io.grpc.Status;
import io.micrometer.core.instrument.MeterRegistry;
import io.spinagent.agent.config.BackoffConfig;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.common.Backoff;
import io.spinagent.common.DaemonThreads;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.AccountStatus;
import io.spinagent.protocol.v1.AccountsChanged;
import io.spinagent.protocol.v1.AgentChannelGrpc;
import io.spinagent.protocol.v1.AgentChannelGrpc.AgentChannelStub;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.Hello;
import io.spinagent.protocol.v1.ProtocolVersion;
import io.spinagent.protocol.v1.ResyncRequest;
import io.spinagent.protocol.v1.Role;
import io.spinagent.protocol.v1.TunnelFrame;
import io.spinagent.protocol.v1.Welcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of the channel: keeps one session with Clouddriver open, reopening it with
 * {@code clouddriver.backoff} whenever it ends, and streams the {@link Outbox} of the accounts
 * Clouddriver lets this agent cache.
 *
 * <p>Producers (the cluster side's watches) put changes into the outbox; this client sends them,
 * applies acknowledgements, and resends whatever was not acknowledged after a reconnect. It offers
 * protocol versions 1 and 2 and speaks whichever Clouddriver chooses. Accounts refused by
 * Clouddriver, or served by this agent as standby, are {@linkplain Outbox#suspend suspended} in the
 * outbox; every decision goes to {@link StreamListener#accountDecided}, which starts, keeps or
 * stops the account's watches.
 *
 * <p>All protocol work happens on one thread, {@code spinagent-stream}; the public methods may be
 * called from any thread. Longer than most classes because everything that outlives a session
 * (accounts announced, decisions, the accounts streamed, reconnecting) is kept here, on that one
 * thread, without locks; {@link ChannelSession} holds what lives and dies with one session.
 */
public final class AgentStreamClient implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentStreamClient.class);

  /** A session that lasted this long after Welcome counts as working: the backoff starts over. */
  static final Duration STABLE_SESSION = Duration.ofSeconds(10);

  private final ClouddriverConnection connection;
  private final AgentChannelStub stub;
  private final AgentIdentity identity;
  private final Outbox outbox;
  private final StreamListener listener;
  private final StreamMetrics metrics;
  private final Backoff backoff;
  private final ScheduledThreadPoolExecutor streamThread;
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final AtomicReference<Thread> streamThreadItself;

  // Touched only on the stream thread.
  private final Map<String, AccountInfo> accounts = new LinkedHashMap<>();
  private final Map<String, AccountDecision> decisions = new LinkedHashMap<>();

  /** Accounts this agent streams, in the order they started; survives reconnects. */
  private final Set<String> streaming = new LinkedHashSet<>();

  private List<String> streamingView = List.of();
  private ChannelSession session;
  private ScheduledFuture<?> pendingAttempt;
  private boolean started;

  /** Sessions that failed since the last one that lasted {@link #STABLE_SESSION}. */
  private int reconnectFailures;

  private volatile boolean closed;
  private volatile boolean connected;
  private volatile int protocolVersion;

  private AgentStreamClient(
      ClouddriverConnection connection,
      AgentIdentity identity,
      Outbox outbox,
      StreamListener listener,
      StreamMetrics metrics,
      Backoff backoff,
      ScheduledThreadPoolExecutor streamThread,
      AtomicReference<Thread> streamThreadItself) {
    this.streamThreadItself = streamThreadItself;
    this.connection = connection;
    AgentChannelStub plain = AgentChannelGrpc.newStub(connection.channel());
    this.stub = connection.callCredentials().map(plain::withCallCredentials).orElse(plain);
    this.identity = identity;
    this.outbox = outbox;
    this.listener = listener;
    this.metrics = metrics;
    this.backoff = backoff;
    this.streamThread = streamThread;
  }

  /**
   * Builds the client and its channel; no thread runs and nothing is sent until {@link #start}.
   *
   * @param outbox where producers put changes; owned by the caller, who closes it
   * @param listener told about sessions and account decisions, on the stream thread
   * @param meters where the stream's meters go (see {@link StreamMetrics})
   * @throws ChannelSetupException naming the configuration key when TLS or token files are unusable
   */
  public static AgentStreamClient create(
      ClouddriverConfig config,
      AgentIdentity identity,
      Outbox outbox,
      StreamListener listener,
      MeterRegistry meters) {
    return create(
        ClouddriverConnection.netty(config), config.backoff(), identity, outbox, listener, meters);
  }

  /**
   * Builds the client on a connection from {@code connections}: the agent's is {@link
   * ClouddriverConnection#netty}, a spec's may be in-process.
   *
   * @param backoff the delays between attempts to reopen the stream
   */
  public static AgentStreamClient create(
      ClouddriverConnection.Factory connections,
      BackoffConfig backoff,
      AgentIdentity identity,
      Outbox outbox,
      StreamListener listener,
      MeterRegistry meters) {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(listener, "listener");
    AtomicReference<Thread> created = new AtomicReference<>();
    ScheduledThreadPoolExecutor streamThread =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = DaemonThreads.named("spinagent-stream").newThread(runnable);
              created.set(thread);
              return thread;
            });
    streamThread.setRemoveOnCancelPolicy(true);
    try {
      ClouddriverConnection connection = connections.open(streamThread);
      AgentStreamClient client =
          new AgentStreamClient(
              connection,
              identity,
              outbox,
              listener,
              new StreamMetrics(meters, outbox),
              Backoff.exponential(backoff.baseDelay(), backoff.multiplier(), backoff.maxDelay())
                  .withJitter(backoff.jitter(), () -> ThreadLocalRandom.current().nextDouble()),
              streamThread,
              created);
      outbox.onEntriesAdded(client::scheduleDrain);
      return client;
    } catch (RuntimeException e) {
      streamThread.shutdownNow();
      throw e;
    }
  }

  /** Starts connecting, announcing {@code initialAccounts} in Hello. Call once. */
  public void start(List<AccountInfo> initialAccounts) {
    List<AccountInfo> copy = List.copyOf(initialAccounts);
    onStreamThread(
        () -> {
          if (started) {
            throw new IllegalStateException("the client was already started");
          }
          started = true;
          accounts.putAll(byName(copy));
          attempt();
        });
  }

  /**
   * The agent's accounts are now {@code current}: added, removed and changed ones are announced
   * with AccountsChanged while connected (a changed account is withdrawn and announced again), or
   * in the next Hello otherwise. A removed account's outbox entries are dropped.
   */
  public void updateAccounts(List<AccountInfo> current) {
    List<AccountInfo> copy = List.copyOf(current);
    onStreamThread(
        () -> {
          AccountsDiff diff = AccountsDiff.between(accounts, byName(copy));
          for (String name : diff.removed()) {
            accounts.remove(name);
            decisions.remove(name);
            stopStreaming(name);
            outbox.suspend(name);
          }
          for (AccountInfo account : diff.added()) {
            accounts.put(account.getName(), account);
            // Undecided: keep what producers put until Clouddriver decides.
            outbox.resume(account.getName());
          }
          if (session != null) {
            diff.announce(session);
          }
          if (!diff.removed().isEmpty() || !diff.added().isEmpty()) {
            log.info(
                "Agent '{}': accounts changed: added or updated {}, removed or updated {}",
                identity.agentId(),
                diff.added().stream().map(AccountInfo::getName).toList(),
                diff.removed());
          }
        });
  }

  private static Map<String, AccountInfo> byName(List<AccountInfo> accounts) {
    Map<String, AccountInfo> byName = new LinkedHashMap<>();
    accounts.forEach(account -> byName.put(account.getName(), account));
    return byName;
  }

  /**
   * The accounts to withdraw (removed or changed) and to announce (added or changed) between two
   * lists: a changed account is withdrawn and announced again.
   */
  private record AccountsDiff(List<String> removed, List<AccountInfo> added) {

    static AccountsDiff between(Map<String, AccountInfo> before, Map<String, AccountInfo> after) {
      return new AccountsDiff(
          before.keySet().stream()
              .filter(name -> !before.get(name).equals(after.get(name)))
              .toList(),
          after.values().stream()
              .filter(account -> !account.equals(before.get(account.getName())))
              .toList());
    }

    /**
     * Sends AccountsChanged. Before Welcome nothing can be sent; {@link SessionEvents#welcomed}
     * then announces whatever changed since Hello.
     */
    void announce(ChannelSession session) {
      // Removals first: the plugin handles additions before removals within one frame.
      if (!removed.isEmpty()) {
        session.sendControl(
            AgentMessage.newBuilder()
                .setAccountsChanged(AccountsChanged.newBuilder().addAllRemoved(removed))
                .build());
      }
      if (!added.isEmpty()) {
        session.sendControl(
            AgentMessage.newBuilder()
                .setAccountsChanged(AccountsChanged.newBuilder().addAllAdded(added))
                .build());
      }
    }
  }

  /** Reports an account's health to Clouddriver (e.g. FAILED with the error), if connected. */
  public void reportAccountStatus(String account, AccountHealth health, String error) {
    AgentMessage message =
        AgentMessage.newBuilder()
            .setAccountStatus(
                AccountStatus.newBuilder()
                    .setAccount(account)
                    .setHealth(health)
                    .setError(error == null ? "" : error))
            .build();
    onStreamThread(
        () -> {
          if (session != null) {
            session.sendControl(message);
          }
        });
  }

  /**
   * Sends frames of relayed Kubernetes API requests, in order and in one hand-off to the stream
   * thread (so a small answer's head, body and end reach gRPC together); dropped when no session is
   * up.
   */
  public void sendTunnel(TunnelFrame... frames) {
    List<AgentMessage> messages = new ArrayList<>(frames.length);
    for (TunnelFrame frame : frames) {
      messages.add(AgentMessage.newBuilder().setTunnel(frame).build());
    }
    onStreamThread(
        () -> {
          if (session != null) {
            messages.forEach(session::sendControl);
          }
        });
  }

  /** Whether a session is established (Welcome received and the stream not ended). */
  public boolean isConnected() {
    return connected;
  }

  /** The protocol version of the current session; 0 while not connected. */
  public int protocolVersion() {
    return connected ? protocolVersion : 0;
  }

  /**
   * Waits, at most {@code timeout}, until Clouddriver has acknowledged everything in the outbox:
   * called while the agent stops, after its producers have stopped. Returns at once when no session
   * is up.
   *
   * @return whether nothing is left unacknowledged
   */
  public boolean awaitAcknowledged(Duration timeout) throws InterruptedException {
    if (!connected) {
      return outbox.size() == 0;
    }
    return outbox.awaitEmpty(timeout);
  }

  /** The latest decision for each account, as far as this client knows. */
  public Map<String, AccountDecision> decisions() {
    return callOnStreamThread(() -> Map.copyOf(decisions));
  }

  /** The role Clouddriver gave {@code account}, if it accepted it. */
  public Optional<Role> role(String account) {
    return Optional.ofNullable(decisions().get(account))
        .filter(AccountDecision::getAccepted)
        .map(AccountDecision::getRole);
  }

  /** Ends the session and the channel. The outbox stays open; its owner closes it. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      streamThread
          .submit(
              () -> {
                if (pendingAttempt != null) {
                  pendingAttempt.cancel(false);
                }
                if (session != null) {
                  session.cancel("the agent is stopping");
                }
              })
          .get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      log.debug("Cancelling the session while stopping failed", e);
    }
    connection.close();
    streamThread.shutdownNow();
    try {
      streamThread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void attempt() {
    pendingAttempt = null;
    if (closed) {
      return;
    }
    connection.prepareAttempt();
    Hello hello =
        Hello.newBuilder()
            .addProtocolVersions(ProtocolVersion.PROTOCOL_VERSION_1_VALUE)
            .addProtocolVersions(ProtocolVersion.PROTOCOL_VERSION_2_VALUE)
            .setAgentId(identity.agentId())
            .setAgentVersion(identity.agentVersion())
            .setZoneId(identity.zoneId())
            .addAllAccounts(accounts.values())
            .build();
    session =
        new ChannelSession(
            hello, outbox, () -> streamingView, new SessionEvents(), metrics, streamThread);
    try {
      session.open(stub);
    } catch (RuntimeException e) {
      // E.g. the channel was shut down underneath; treat like a failed attempt.
      log.warn(
          "Agent '{}': cannot open a stream to Clouddriver at {}: {}",
          identity.agentId(),
          connection.target(),
          e.toString());
    }
  }

  /** Runs on the stream thread. */
  private final class SessionEvents implements ChannelSession.Events {

    @Override
    public void welcomed(ChannelSession s, Welcome welcome) {
      if (s != session) {
        return;
      }
      protocolVersion = welcome.getProtocolVersion();
      connected = true;
      metrics.connected(true);
      log.info(
          "Agent '{}' connected to Clouddriver at {} (replica {}, session {}, protocol v{},"
              + " heartbeat {}s)",
          identity.agentId(),
          connection.target(),
          welcome.getReplicaId(),
          welcome.getSessionId(),
          welcome.getProtocolVersion(),
          welcome.getHeartbeatIntervalSeconds());
      int version = welcome.getProtocolVersion();
      safely(
          () -> listener.connected(welcome.getReplicaId(), welcome.getSessionId(), version),
          "connected");
      welcome.getAccountsList().forEach(this::apply);
      // Accounts that started, changed or stopped between Hello and Welcome.
      AccountsDiff.between(byName(s.hello().getAccountsList()), accounts).announce(s);
    }

    @Override
    public void decided(ChannelSession s, AccountDecision decision) {
      if (s == session) {
        apply(decision);
      }
    }

    @Override
    public void resyncRequested(ChannelSession s, ResyncRequest request) {
      if (s != session) {
        return;
      }
      if (!streaming.contains(request.getAccount())) {
        log.debug(
            "Agent '{}': ignoring a resync request for account '{}', which this agent does not"
                + " stream",
            identity.agentId(),
            request.getAccount());
        return;
      }
      log.info(
          "Agent '{}': Clouddriver asks for a complete listing of {} of account '{}': {}",
          identity.agentId(),
          request.getKindsList().stream().map(k -> k.getKind()).toList(),
          request.getAccount(),
          request.getReason());
      safely(
          () ->
              listener.resyncRequested(
                  request.getAccount(), request.getKindsList(), request.getReason()),
          "resyncRequested");
    }

    @Override
    public void tunnel(ChannelSession s, TunnelFrame frame) {
      if (s == session) {
        safely(() -> listener.tunnelFrame(frame), "tunnelFrame");
      }
    }

    @Override
    public void command(ChannelSession s, Command command) {
      if (s != session) {
        return;
      }
      safely(
          () -> listener.accountCommand(command, result -> answer(s, command, result)),
          "accountCommand");
    }

    private void apply(AccountDecision decision) {
      String account = decision.getAccount();
      if (!accounts.containsKey(account)) {
        log.debug(
            "Agent '{}': ignoring a decision about account '{}', which this agent no longer serves",
            identity.agentId(),
            account);
        return;
      }
      decisions.put(account, decision);
      if (!decision.getAccepted()) {
        log.error(
            "Agent '{}': Clouddriver refused account '{}': {}. Its changes are not sent;"
                + " fix the account's configuration or the conflicting agent.",
            identity.agentId(),
            account,
            decision.getReason());
        stopStreaming(account);
        outbox.suspend(account);
      } else if (decision.getRole() == Role.ROLE_CACHING) {
        outbox.resume(account);
        log.debug(
            "Agent '{}': account '{}' is this agent's to stream; Clouddriver has committed it up to"
                + " sequence {}",
            identity.agentId(),
            account,
            decision.getCommittedSequence());
        outbox.applyCommitted(account, decision.getCommittedSequence());
        if (streaming.add(account)) {
          streamingView = List.copyOf(streaming);
          log.info("Agent '{}' streams account '{}'", identity.agentId(), account);
        }
      } else {
        log.info(
            "Agent '{}' serves account '{}' as standby: another agent streams it",
            identity.agentId(),
            account);
        stopStreaming(account);
        outbox.suspend(account);
      }
      safely(() -> listener.accountDecided(decision), "accountDecided");
      if (decision.getAccepted()
          && decision.getRole() == Role.ROLE_CACHING
          && decision.getResyncRequired()) {
        safely(() -> listener.resyncRequired(account), "resyncRequired");
      }
    }

    @Override
    public void ended(
        ChannelSession s, Status status, boolean wasWelcomed, Duration reconnectAfter) {
      if (s != session) {
        return;
      }
      session = null;
      connected = false;
      metrics.connected(false);
      metrics.sessionEnded(status);
      safely(() -> listener.disconnected(status), "disconnected");
      if (closed) {
        log.info("Agent '{}': session with Clouddriver closed", identity.agentId());
        return;
      }
      SessionEndAdvice advice =
          SessionEndAdvice.of(identity.agentId(), connection.target(), status, wasWelcomed);
      if (advice.mustAct()) {
        log.error(advice.message());
      } else {
        log.warn(advice.message());
      }
      if (wasWelcomed && s.age().compareTo(STABLE_SESSION) >= 0) {
        reconnectFailures = 0;
      }
      Duration delay = backoff.delay(++reconnectFailures);
      if (reconnectAfter.compareTo(delay) > 0) {
        delay = reconnectAfter;
      }
      metrics.reconnecting();
      log.info(
          "Agent '{}': reconnecting to Clouddriver at {} in {} ms (attempt {})",
          identity.agentId(),
          connection.target(),
          delay.toMillis(),
          reconnectFailures);
      pendingAttempt =
          streamThread.schedule(
              AgentStreamClient.this::attempt, delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Sends a command's result on the session that received the command. If that session has ended,
   * the result is dropped: Clouddriver sends its dynamic accounts again after the reconnect.
   */
  private void answer(ChannelSession received, Command command, CommandResult result) {
    try {
      onStreamThread(
          () -> {
            metrics.commandAnswered(command.getCommandCase(), result.getOk());
            if (received != session) {
              log.info(
                  "Agent '{}': the session that sent command {} has ended; its result is not sent",
                  identity.agentId(),
                  command.getCommandId());
            }
            received.answer(result);
          });
    } catch (IllegalStateException closing) {
      log.debug(
          "Agent '{}': stopping, the result of command {} is not sent",
          identity.agentId(),
          command.getCommandId());
    }
  }

  private void stopStreaming(String account) {
    if (streaming.remove(account)) {
      streamingView = List.copyOf(streaming);
    }
  }

  /** Coalesces the outbox's notifications into one drain on the stream thread. */
  private void scheduleDrain() {
    if (closed || !drainScheduled.compareAndSet(false, true)) {
      return;
    }
    try {
      streamThread.execute(
          () -> {
            drainScheduled.set(false);
            if (session != null) {
              session.drain();
            }
          });
    } catch (RejectedExecutionException stopping) {
      drainScheduled.set(false);
    }
  }

  private void safely(Runnable callback, String name) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      log.error("Agent '{}': stream listener {} failed", identity.agentId(), name, e);
    }
  }

  private void onStreamThread(Runnable task) {
    if (closed) {
      throw new IllegalStateException("the client is closed");
    }
    streamThread.execute(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            log.error("Agent '{}': stream task failed", identity.agentId(), e);
          }
        });
  }

  private <T> T callOnStreamThread(Supplier<T> query) {
    if (Thread.currentThread() == streamThreadItself.get()) {
      return query.get();
    }
    CompletableFuture<T> result = CompletableFuture.supplyAsync(query, streamThread);
    try {
      return result.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the stream thread did not answer", e);
    }
  }
}
