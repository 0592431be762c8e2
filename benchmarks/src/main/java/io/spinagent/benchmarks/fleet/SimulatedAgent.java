package io.spinagent.benchmarks.fleet;

import static io.spinagent.benchmarks.FailureReporting.reported;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.AgentChannelGrpc;
import io.spinagent.protocol.v1.AgentMessage;
import io.spinagent.protocol.v1.ChangeBatch;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.ClusterIdentity;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.Heartbeat;
import io.spinagent.protocol.v1.Hello;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.PluginMessage;
import io.spinagent.protocol.v1.ProtocolVersion;
import io.spinagent.protocol.v1.ResumePoint;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.protocol.v1.Role;
import io.spinagent.protocol.v1.WatchProgress;
import io.spinagent.protocol.v1.Welcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One agent with one account, speaking the real protocol over a real gRPC connection, as the agent
 * does: Hello offering protocol versions 1 and 2, a complete listing of each kind when the plugin
 * asks for one, changes batched from an outbox while the stream is ready, heartbeats, the silence
 * rule, acknowledgements, and reconnection with the agent's default backoff to the next replica of
 * its list. Version 1 sends each resync marker as a frame of its own; version 2 sends markers and
 * watch progress inline in the batches (progress after each listing, and with a kind's changes at
 * most every 5 s), lists only kinds without a resume point, and relists what a ResyncRequest names.
 *
 * <p>The account's objects are a {@link ClusterObjects#application} kept in memory; a change
 * updates one of them (a new resourceVersion and annotation). A change offered for a {@link
 * Latencies} is timed from when it was due until the acknowledgement that covers it arrives (the
 * plugin acknowledges only after the commit).
 *
 * <p>Thread-safe: gRPC's callbacks, the load's and the timers' calls all synchronize on the agent.
 *
 * <p>Past 500 lines because it is one protocol state machine (both versions), like the agent's
 * stream client it stands in for.
 */
final class SimulatedAgent {

  static final List<Kind> KINDS =
      List.of(
          kind("apps", "Deployment", "deployments"),
          kind("apps", "ReplicaSet", "replicasets"),
          kind("", "Pod", "pods"),
          kind("", "Service", "services"));

  private static final int MAX_CHANGES_PER_BATCH = 500;

  /** Version 2: a kind's watch progress goes out at most this often (with its changes). */
  private static final long PROGRESS_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

  private static final long STABLE_SESSION_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final int SILENT_INTERVALS = 3;

  private final String agentId;
  private final String account;
  private final List<ManagedChannel> replicas;
  private final SimulatedFleet fleet;
  private final AccountInfo info;
  private final Map<String, ObjectNode> objects = new LinkedHashMap<>();
  private final Map<String, Kind> kindOf = new LinkedHashMap<>();
  private final Map<Kind, Long> lastProgressNanos = new HashMap<>();

  // Guarded by this.
  private final ArrayDeque<Entry> outbox = new ArrayDeque<>();
  private long nextSequence = System.currentTimeMillis() * 1000;
  private long resourceVersion = 1_000;
  private ClientCallStreamObserver<AgentMessage> stream;
  private boolean welcomed;
  private int protocolVersion;
  private long sentUpTo;
  private long lastReceivedNanos;
  private long sessionStartNanos;
  private long welcomedNanos;
  private long lastEndedNanos;
  private int nextReplica;
  private int failures;
  private boolean listed;
  private ScheduledFuture<?> heartbeats;
  private boolean closed;

  /** One outbox entry: a change, a marker or (version 2) a watch progress, with its sequence. */
  private record Entry(
      long sequence,
      ObjectChange change,
      ResyncMarker marker,
      WatchProgress progress,
      long dueNanos,
      Latencies latencies) {}

  SimulatedAgent(
      String agentId,
      String account,
      int objectCount,
      List<ManagedChannel> replicas,
      int first,
      SimulatedFleet fleet) {
    this.agentId = agentId;
    this.account = account;
    this.replicas = replicas;
    this.nextReplica = first;
    this.fleet = fleet;
    for (ObjectNode object : ClusterObjects.application("shop", objectCount)) {
      ObjectNode metadata = (ObjectNode) object.get("metadata");
      metadata.put("uid", UUID.randomUUID().toString());
      metadata.put("resourceVersion", String.valueOf(++resourceVersion));
      String key = object.get("kind").asText() + "/" + metadata.get("name").asText();
      objects.put(key, object);
      String kind = object.get("kind").asText();
      kindOf.put(
          key, KINDS.stream().filter(k -> k.getKind().equals(kind)).findFirst().orElseThrow());
    }
    this.info =
        AccountInfo.newBuilder()
            .setName(account)
            .setCluster(
                ClusterIdentity.newBuilder()
                    .setApiServerHost(account + ".clusters.example.com:443")
                    .setCaFingerprintSha256(
                        String.format("%064x", (long) account.hashCode() & 0xffffffffL))
                    .setKubernetesVersion("v1.29.4"))
            .addAllKinds(KINDS)
            .build();
  }

  String account() {
    return account;
  }

  synchronized boolean isConnected() {
    return welcomed && stream != null;
  }

  /**
   * Whether this agent's account has been streaming without a break since {@code nanos}, or its
   * session was opened after {@code nanos} and every listing it sent since is acknowledged (the
   * plugin makes the account ACTIVE when it commits the listing's last END).
   */
  synchronized boolean settledSince(long nanos) {
    if (!welcomed || stream == null) {
      return false;
    }
    if (lastEndedNanos - nanos < 0 && welcomedNanos - nanos < 0) {
      return true;
    }
    return welcomedNanos - nanos >= 0 && outbox.stream().noneMatch(e -> e.marker() != null);
  }

  /** Opens a session with the next replica (the first call: the replica given at construction). */
  synchronized void connect() {
    if (closed || stream != null) {
      return;
    }
    ManagedChannel channel = replicas.get(nextReplica % replicas.size());
    nextReplica++;
    welcomed = false;
    sessionStartNanos = System.nanoTime();
    lastReceivedNanos = sessionStartNanos;
    AgentChannelGrpc.newStub(channel).connect(new Session());
    Hello hello =
        Hello.newBuilder()
            .addProtocolVersions(ProtocolVersion.PROTOCOL_VERSION_1_VALUE)
            .addProtocolVersions(ProtocolVersion.PROTOCOL_VERSION_2_VALUE)
            .setAgentId(agentId)
            .setAgentVersion("fleet-benchmark")
            .addAccounts(info)
            .build();
    stream.onNext(AgentMessage.newBuilder().setHello(hello).build());
  }

  /**
   * Changes one object now; the change is timed for {@code latencies} (null: untimed) from {@code
   * dueNanos}, when the load meant it to happen.
   */
  synchronized void change(long dueNanos, Latencies latencies) {
    List<String> keys = new ArrayList<>(objects.keySet());
    String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
    ObjectNode object = objects.get(key);
    ObjectNode metadata = (ObjectNode) object.get("metadata");
    metadata.put("resourceVersion", String.valueOf(++resourceVersion));
    ObjectNode annotations =
        metadata.has("annotations")
            ? (ObjectNode) metadata.get("annotations")
            : metadata.putObject("annotations");
    annotations.put("fleet-bench/revision", String.valueOf(resourceVersion));
    if (latencies != null) {
      latencies.offered();
    }
    long sequence = nextSequence++;
    outbox.add(new Entry(sequence, upsert(key, sequence), null, null, dueNanos, latencies));
    if (protocolVersion >= 2) {
      Kind kind = kindOf.get(key);
      long now = System.nanoTime();
      Long last = lastProgressNanos.get(kind);
      if (last == null || now - last >= PROGRESS_INTERVAL_NANOS) {
        lastProgressNanos.put(kind, now);
        outbox.add(progress(kind));
      }
    }
    drain();
  }

  synchronized void close() {
    closed = true;
    if (stream != null) {
      stream.cancel("the benchmark is done", null);
    }
    endSession();
  }

  // ---------------------------------------------------------------------------------------------

  private final class Session implements ClientResponseObserver<AgentMessage, PluginMessage> {
    private ClientCallStreamObserver<AgentMessage> requests;

    @Override
    public void beforeStart(ClientCallStreamObserver<AgentMessage> requestStream) {
      this.requests = requestStream;
      requestStream.setOnReadyHandler(() -> onReady(this));
      synchronized (SimulatedAgent.this) {
        stream = requestStream;
      }
    }

    @Override
    public void onNext(PluginMessage message) {
      received(this, message);
    }

    @Override
    public void onError(Throwable error) {
      ended(this);
    }

    @Override
    public void onCompleted() {
      ended(this);
    }
  }

  private synchronized void onReady(Session session) {
    if (session.requests == stream) {
      drain();
    }
  }

  private synchronized void received(Session session, PluginMessage message) {
    if (session.requests != stream) {
      return;
    }
    lastReceivedNanos = System.nanoTime();
    switch (message.getBodyCase()) {
      case WELCOME -> welcome(message.getWelcome());
      case DECISIONS -> message.getDecisions().getAccountsList().forEach(this::decided);
      case ACK -> acknowledged(message.getAck().getSequence());
      case RESYNC_REQUEST -> {
        fleet.counters().resyncRequests.incrementAndGet();
        list(new HashSet<>(message.getResyncRequest().getKindsList()), true);
      }
      case COMMAND -> command(message.getCommand());
      default -> {
        // Heartbeats count as liveness (above); tunnel frames are not simulated.
      }
    }
    drain();
  }

  private void welcome(Welcome welcome) {
    welcomed = true;
    welcomedNanos = System.nanoTime();
    protocolVersion = welcome.getProtocolVersion();
    fleet.counters().protocolVersions.merge(protocolVersion, 1, Integer::sum);
    int interval = Math.max(1, welcome.getHeartbeatIntervalSeconds());
    heartbeats =
        fleet
            .timer()
            .scheduleAtFixedRate(() -> heartbeat(interval), interval, interval, TimeUnit.SECONDS);
    // A new session sends everything not acknowledged again, from the start.
    sentUpTo = 0;
    welcome.getAccountsList().forEach(this::decided);
  }

  private void decided(AccountDecision decision) {
    if (!decision.getAccount().equals(account)) {
      return;
    }
    if (!decision.getAccepted() || decision.getRole() != Role.ROLE_CACHING) {
      fleet.counters().refused.incrementAndGet();
      return;
    }
    acknowledged(decision.getCommittedSequence());
    nextSequence = Math.max(nextSequence, decision.getCommittedSequence() + 1);
    if (decision.getResyncRequired() || (!listed && protocolVersion < 2)) {
      // Version 1 lists once its watches have synced, and whenever the plugin asks.
      list(Set.copyOf(KINDS), false);
      return;
    }
    // Version 2: the watches of this process keep running; a kind is listed only if it was
    // never listed here and the plugin has no resume point for it.
    if (!listed) {
      Set<Kind> resumable = new HashSet<>();
      for (ResumePoint point : decision.getResumePointsList()) {
        resumable.add(point.getKind());
      }
      Set<Kind> toList = new HashSet<>();
      for (Kind kind : KINDS) {
        if (!resumable.contains(kind)) {
          toList.add(kind);
        }
      }
      list(toList, false);
      fleet.counters().resumedKinds.addAndGet(KINDS.size() - toList.size());
    }
  }

  /** A complete listing of {@code kinds}: BEGIN, every object, END (v2: and the progress). */
  private void list(Set<Kind> kinds, boolean requested) {
    listed = true;
    for (Kind kind : KINDS) {
      if (!kinds.contains(kind)) {
        continue;
      }
      String resyncId = UUID.randomUUID().toString();
      outbox.add(marker(kind, ResyncPhase.RESYNC_PHASE_BEGIN, resyncId));
      for (Map.Entry<String, Kind> object : kindOf.entrySet()) {
        if (object.getValue().equals(kind)) {
          long sequence = nextSequence++;
          outbox.add(new Entry(sequence, upsert(object.getKey(), sequence), null, null, 0, null));
          fleet.counters().listedObjects.incrementAndGet();
        }
      }
      outbox.add(marker(kind, ResyncPhase.RESYNC_PHASE_END, resyncId));
      if (protocolVersion >= 2) {
        // The listing's resourceVersion: where the kind's watch starts.
        lastProgressNanos.put(kind, System.nanoTime());
        outbox.add(progress(kind));
      }
    }
    if (requested) {
      fleet.counters().listingsRequested.incrementAndGet();
    }
  }

  /** Version 2: every change of {@code kind} up to the current resourceVersion is in the outbox. */
  private Entry progress(Kind kind) {
    long sequence = nextSequence++;
    return new Entry(
        sequence,
        null,
        null,
        WatchProgress.newBuilder()
            .setKind(kind)
            .setResourceVersion(String.valueOf(resourceVersion))
            .setSequence(sequence)
            .build(),
        0,
        null);
  }

  private Entry marker(Kind kind, ResyncPhase phase, String resyncId) {
    long sequence = nextSequence++;
    return new Entry(
        sequence,
        null,
        ResyncMarker.newBuilder()
            .setAccount(account)
            .setKind(kind)
            .setPhase(phase)
            .setSequence(sequence)
            .setResyncId(resyncId)
            .build(),
        null,
        0,
        null);
  }

  private void acknowledged(long sequence) {
    long now = System.nanoTime();
    while (!outbox.isEmpty() && outbox.peekFirst().sequence() <= sequence) {
      Entry entry = outbox.pollFirst();
      if (entry.latencies() != null) {
        entry.latencies().record(TimeUnit.NANOSECONDS.toMicros(now - entry.dueNanos()));
      }
    }
  }

  private void command(Command command) {
    if (command.getCommandCase() == Command.CommandCase.DISCONNECT) {
      stream.onCompleted();
      endSession();
      reconnectLater(command.getDisconnect().getReconnectAfterSeconds() * 1000L);
      return;
    }
    stream.onNext(
        AgentMessage.newBuilder()
            .setCommandResult(
                CommandResult.newBuilder()
                    .setCommandId(command.getCommandId())
                    .setOk(false)
                    .setError("a simulated agent takes no commands"))
            .build());
  }

  /** Sends what the outbox holds beyond {@code sentUpTo}, while gRPC says the stream is ready. */
  private void drain() {
    if (!welcomed || stream == null) {
      return;
    }
    while (stream.isReady()) {
      List<Entry> run = new ArrayList<>();
      for (Entry entry : outbox) {
        if (entry.sequence() <= sentUpTo) {
          continue;
        }
        if (protocolVersion < 2 && entry.marker() != null) {
          // Version 1: a marker is a frame of its own, never inside a batch.
          if (run.isEmpty()) {
            run.add(entry);
          }
          break;
        }
        run.add(entry);
        if (run.size() == MAX_CHANGES_PER_BATCH) {
          break;
        }
      }
      if (run.isEmpty()) {
        return;
      }
      stream.onNext(frame(run));
      sentUpTo = run.get(run.size() - 1).sequence();
      fleet.counters().frames.incrementAndGet();
    }
  }

  private AgentMessage frame(List<Entry> run) {
    if (run.size() == 1 && run.get(0).marker() != null && protocolVersion < 2) {
      return AgentMessage.newBuilder().setResync(run.get(0).marker()).build();
    }
    ChangeBatch.Builder batch = ChangeBatch.newBuilder().setAccount(account);
    for (Entry entry : run) {
      if (entry.change() != null) {
        batch.addChanges(entry.change());
      } else if (entry.marker() != null) {
        batch.addMarkers(entry.marker());
      } else {
        batch.addProgress(entry.progress());
      }
    }
    return AgentMessage.newBuilder().setChanges(batch).build();
  }

  private ObjectChange upsert(String key, long sequence) {
    ObjectNode object = objects.get(key);
    ObjectNode metadata = (ObjectNode) object.get("metadata");
    return ObjectChange.newBuilder()
        .setSequence(sequence)
        .setKind(kindOf.get(key))
        .setNamespace(metadata.path("namespace").asText(""))
        .setName(metadata.get("name").asText())
        .setUid(metadata.get("uid").asText())
        .setResourceVersion(metadata.get("resourceVersion").asText())
        .setType(ChangeType.CHANGE_TYPE_UPSERT)
        .setObjectJson(ByteString.copyFrom(object.toString(), StandardCharsets.UTF_8))
        .setObservedAtMillis(System.currentTimeMillis())
        .build();
  }

  private synchronized void heartbeat(int intervalSeconds) {
    if (stream == null || !welcomed) {
      return;
    }
    long silent = System.nanoTime() - lastReceivedNanos;
    if (silent >= TimeUnit.SECONDS.toNanos((long) SILENT_INTERVALS * intervalSeconds)) {
      // The agent's rule: a plugin silent for three intervals is gone.
      fleet.counters().silenceEnded.incrementAndGet();
      stream.cancel("no frame from Clouddriver for three heartbeat intervals", null);
      endSession();
      reconnectLater(-1);
      return;
    }
    stream.onNext(
        AgentMessage.newBuilder()
            .setHeartbeat(Heartbeat.newBuilder().setSentAtMillis(System.currentTimeMillis()))
            .build());
  }

  private synchronized void ended(Session session) {
    if (session.requests != stream) {
      return;
    }
    boolean wasWelcomed = welcomed;
    if (wasWelcomed) {
      fleet.counters().sessionsEnded.incrementAndGet();
    }
    endSession();
    if (!closed) {
      if (wasWelcomed && System.nanoTime() - sessionStartNanos >= STABLE_SESSION_NANOS) {
        failures = 0;
      }
      reconnectLater(-1);
    }
  }

  private void endSession() {
    if (stream != null) {
      lastEndedNanos = System.nanoTime();
    }
    stream = null;
    welcomed = false;
    if (heartbeats != null) {
      heartbeats.cancel(false);
      heartbeats = null;
    }
  }

  /** The agent's default backoff: 1 s × 1.6ⁿ, ±20%, at most 120 s (or what the plugin asked). */
  private void reconnectLater(long atLeastMillis) {
    if (closed) {
      return;
    }
    double delay = Math.min(1000 * Math.pow(1.6, failures), 120_000);
    failures = Math.min(failures + 1, 64);
    long millis = (long) (delay * (1 + 0.2 * (2 * ThreadLocalRandom.current().nextDouble() - 1)));
    // A failed reconnection is printed: the agent would otherwise stay disconnected unnoticed.
    ScheduledFuture<?> unused =
        fleet
            .timer()
            .schedule(
                reported("Reconnecting " + agentId, this::connect),
                Math.max(millis, atLeastMillis),
                TimeUnit.MILLISECONDS);
  }

  private static Kind kind(String group, String kind, String plural) {
    return Kind.newBuilder()
        .setGroup(group)
        .setVersion("v1")
        .setKind(kind)
        .setPlural(plural)
        .setNamespaced(true)
        .build();
  }
}
