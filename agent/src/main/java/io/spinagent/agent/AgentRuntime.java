package io.spinagent.agent;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.grpc.Status;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.spinagent.agent.admin.AdminServer;
import io.spinagent.agent.admin.PrometheusEndpoint;
import io.spinagent.agent.cluster.AccountCommands;
import io.spinagent.agent.cluster.AccountStatus;
import io.spinagent.agent.cluster.ClusterManager;
import io.spinagent.agent.cluster.ClusterMetrics;
import io.spinagent.agent.cluster.ClusterOptions;
import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.binding.ConfigFileWatcher;
import io.spinagent.agent.config.binding.ConfigLoadResult;
import io.spinagent.agent.config.binding.ConfigLoader;
import io.spinagent.agent.stream.AgentIdentity;
import io.spinagent.agent.stream.AgentStreamClient;
import io.spinagent.agent.stream.Outbox;
import io.spinagent.agent.stream.StreamListener;
import io.spinagent.agent.tunnel.InFlightRequest;
import io.spinagent.agent.tunnel.TunnelExecutor;
import io.spinagent.common.DaemonThreads;
import io.spinagent.protocol.v1.AccountDecision;
import io.spinagent.protocol.v1.AccountHealth;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.Command;
import io.spinagent.protocol.v1.CommandResult;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ProtocolVersion;
import io.spinagent.protocol.v1.TunnelFrame;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running agent: the outbox and stream to Clouddriver, the cluster side feeding it, the tunnel,
 * the admin endpoint, and the configuration watcher that adds, removes and restarts accounts while
 * running.
 *
 * <p>It is built in two steps, as client-java's informers are: the constructor builds every part,
 * each given this runtime's handlers for what it hears from the others, and starts no thread;
 * {@code start} then starts them, so that no part hears from another before all exist.
 *
 * <p>Stopping ({@link #close}, e.g. on SIGTERM) takes a few seconds whatever the number of
 * accounts: producers stop first (every account at once, requests cancelled), then the stream gets
 * {@link #ACK_WINDOW} to send what the outbox holds and receive its acknowledgements. What is not
 * acknowledged by then is not lost: the next start resumes each kind from Clouddriver's last
 * committed resume point, which is below anything unacknowledged, or lists it.
 */
public final class AgentRuntime implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentRuntime.class);

  /** Well inside the 5 s within which a configuration change must take effect. */
  static final Duration CONFIG_POLL = Duration.ofSeconds(1);

  /** How long a stopping agent waits for Clouddriver to acknowledge what it has sent. */
  static final Duration ACK_WINDOW = Duration.ofSeconds(3);

  private final Path configFile;
  private final ConfigLoader loader;
  private final AgentIdentity identity;
  private final PrometheusMeterRegistry registry;
  private final Outbox outbox;
  private final AgentStreamClient stream;
  private final TunnelExecutor tunnels;
  private final ClusterManager clusters;
  private final AccountCommands commands;

  /** Carries out Clouddriver's account commands, off the stream's thread. */
  private final ExecutorService commandThread;

  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile AgentConfig running;
  private volatile String configError;

  @GuardedBy("this")
  private AdminServer admin;

  @GuardedBy("this")
  private PrometheusEndpoint prometheus;

  @GuardedBy("this")
  private ConfigFileWatcher watcher;

  private AgentRuntime(
      Path configFile, AgentConfig config, ConfigLoader loader, ClusterOptions options) {
    this.configFile = configFile;
    this.loader = loader;
    this.running = config;
    this.identity = AgentIdentity.of(config.agent(), VersionProvider.version());
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    this.outbox = new Outbox(config.clouddriver().outbox().maxBytes());
    // The one part that can refuse the configuration (clouddriver.tls, clouddriver.auth files).
    this.stream =
        AgentStreamClient.create(
            config.clouddriver(), identity, outbox, new StreamEvents(), registry);
    try {
      this.clusters =
          new ClusterManager(
              outbox,
              config.tasks(),
              config.kubernetes().cacheGroups(),
              config.timeoutSeconds(),
              options,
              new ClusterEvents(),
              registry);
      this.tunnels =
          new TunnelExecutor(
              clusters::apiClient, stream::sendTunnel, config.operations(), identity.agentId());
      this.commands =
          new AccountCommands(identity.agentId(), clusters, config.kubernetes().noProxy());
      this.commandThread =
          Executors.newSingleThreadExecutor(DaemonThreads.named("spinagent-commands"));
      ClusterMetrics.register(registry, clusters);
    } catch (RuntimeException e) {
      // Nothing else was started yet; the stream's channel is the one thing to free.
      stream.close();
      throw e;
    }
  }

  /** Starts everything for a configuration that {@code loader} loaded from {@code configFile}. */
  public static AgentRuntime start(Path configFile, AgentConfig config, ConfigLoader loader) {
    return start(configFile, config, loader, ClusterOptions.DEFAULTS, config.server().port());
  }

  /** For tests: other cluster options and admin port (0 for a free one). */
  static AgentRuntime start(
      Path configFile,
      AgentConfig config,
      ConfigLoader loader,
      ClusterOptions options,
      int adminPort) {
    AgentRuntime runtime = new AgentRuntime(configFile, config, loader, options);
    try {
      runtime.start(adminPort);
    } catch (RuntimeException e) {
      runtime.close();
      throw e;
    }
    return runtime;
  }

  private synchronized void start(int adminPort) {
    AgentConfig config = running;
    admin = AdminServer.start(config.server().withPort(adminPort), new AdminStatus(), registry);
    if (config.prometheus().enabled()) {
      prometheus =
          PrometheusEndpoint.start(config.server().withPort(config.prometheus().port()), registry);
    }
    stream.start(List.of());
    clusters.apply(config.kubernetes().accounts());
    watcher =
        new ConfigFileWatcher(
            configFile, loader, ConfigFileWatcher.hash(configFile), CONFIG_POLL, this::reload);
  }

  private void reload(ConfigLoadResult result) {
    if (result instanceof ConfigLoadResult.Invalid invalid) {
      configError = invalid.report();
      log.error(
          "The changed configuration is not used, the last valid one keeps running: {}",
          configError);
      return;
    }
    ConfigLoadResult.Loaded loaded = (ConfigLoadResult.Loaded) result;
    loaded.warnings().forEach(warning -> log.warn("{}", warning.describe()));
    AgentConfig next = loaded.config();
    configError = null;
    AgentConfig previous = running;
    running = next;
    if (!Objects.equals(withoutAccounts(previous), withoutAccounts(next))
        || !previous.kubernetes().cacheGroups().equals(next.kubernetes().cacheGroups())) {
      log.warn(
          "Configuration {}: only kubernetes.accounts take effect while running; restart the agent"
              + " for the other changes",
          configFile);
    }
    clusters.apply(next.kubernetes().accounts());
  }

  private static List<Object> withoutAccounts(AgentConfig c) {
    return List.of(
        c.agent(),
        c.clouddriver(),
        c.server(),
        c.prometheus(),
        c.logging(),
        c.tasks(),
        c.timeoutSeconds(),
        c.operations());
  }

  public ClusterManager clusters() {
    return clusters;
  }

  public Outbox outbox() {
    return outbox;
  }

  public AgentStreamClient stream() {
    return stream;
  }

  public synchronized int adminPort() {
    return admin.port();
  }

  public String configError() {
    return configError;
  }

  /** Blocks until {@link #close} has run. */
  public void awaitClosed() throws InterruptedException {
    closed.await();
  }

  @Override
  public synchronized void close() {
    if (closed.getCount() == 0) {
      return;
    }
    log.info("Stopping the agent");
    long started = System.nanoTime();
    closeQuietly(watcher);
    commandThread.shutdownNow();
    closeQuietly(tunnels);
    // Producers first: puts fail from now on, so no watch waits for space in the outbox.
    outbox.close();
    closeQuietly(clusters);
    try {
      if (!stream.awaitAcknowledged(ACK_WINDOW)) {
        log.info(
            "Stopping with {} changes not acknowledged by Clouddriver; the next start resumes"
                + " from Clouddriver's resume points or lists again",
            outbox.size());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeQuietly(stream);
    closeQuietly(prometheus);
    closeQuietly(admin);
    registry.close();
    log.info("Agent stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    closed.countDown();
  }

  /** What the stream hears from Clouddriver, on the stream's thread. */
  private final class StreamEvents implements StreamListener {
    @Override
    public void connected(String replicaId, String sessionId, int protocolVersion) {
      clusters.setProgressReporting(protocolVersion >= ProtocolVersion.PROTOCOL_VERSION_2_VALUE);
    }

    @Override
    public void accountDecided(AccountDecision decision) {
      clusters.decided(decision);
    }

    @Override
    public void resyncRequested(String account, List<Kind> kinds, String reason) {
      clusters.resyncRequested(account, kinds);
    }

    @Override
    public void tunnelFrame(TunnelFrame frame) {
      tunnels.frame(frame);
    }

    @Override
    public void disconnected(Status status) {
      tunnels.sessionEnded();
    }

    @Override
    public void accountCommand(Command command, Consumer<CommandResult> reply) {
      // One at a time and in order: stopping an account waits for its threads, which the stream
      // must not.
      try {
        commandThread.execute(() -> reply.accept(commands.execute(command)));
      } catch (RejectedExecutionException stopping) {
        reply.accept(
            CommandResult.newBuilder()
                .setCommandId(command.getCommandId())
                .setOk(false)
                .setError("the agent is stopping")
                .build());
      }
    }
  }

  /** What the cluster side tells Clouddriver. */
  private final class ClusterEvents implements ClusterManager.Listener {
    @Override
    public void accountsChanged(List<AccountInfo> accounts) {
      stream.updateAccounts(accounts);
    }

    @Override
    public void accountHealth(String account, AccountHealth health, String error) {
      stream.reportAccountStatus(account, health, error);
    }
  }

  /** What the admin endpoint shows. */
  private final class AdminStatus implements AdminServer.Status {
    @Override
    public List<AccountStatus> accounts() {
      return clusters.statuses();
    }

    @Override
    public String configError() {
      return configError;
    }

    @Override
    public List<InFlightRequest> operations() {
      return tunnels.inFlight();
    }

    @Override
    public String agentId() {
      return identity.agentId();
    }

    @Override
    public String version() {
      return identity.agentVersion();
    }

    @Override
    public Optional<ApiClient> client(String account) {
      return clusters.apiClient(account);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      log.warn("Error while stopping {}", closeable.getClass().getSimpleName(), e);
    }
  }
}
