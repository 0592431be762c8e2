package io.spinagent.plugin.grpc;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.spinagent.common.DaemonThreads;
import io.spinagent.plugin.config.SpinAgentProperties;
import io.spinagent.plugin.grpc.auth.AgentAuthenticator;
import io.spinagent.plugin.grpc.auth.AgentPeer;
import io.spinagent.plugin.grpc.auth.BearerTokens;
import io.spinagent.plugin.grpc.session.AgentChannelService;
import io.spinagent.plugin.grpc.session.ChannelMetrics;
import io.spinagent.plugin.grpc.session.SessionContext;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running agent channel of this replica: the gRPC server agents connect to, with its health
 * service, authentication and sessions. Closing it ends every session and frees the port.
 */
public final class AgentChannel implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentChannel.class);
  private static final int SINK_THREADS = 4;

  private final Server server;
  private final ServerTls tls;
  private final HealthStatusManager health;
  private final SessionRegistry sessions;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService sinkExecutor;

  private AgentChannel(
      Server server,
      ServerTls tls,
      HealthStatusManager health,
      SessionRegistry sessions,
      ScheduledExecutorService scheduler,
      ExecutorService sinkExecutor) {
    this.server = server;
    this.tls = tls;
    this.health = health;
    this.sessions = sessions;
    this.scheduler = scheduler;
    this.sinkExecutor = sinkExecutor;
  }

  /**
   * Starts the channel on the agent port configured in {@code spinagent.grpc}: Netty, with its
   * address, TLS or mTLS (certificates reloaded as they change) and keepalive settings.
   */
  public static AgentChannel startOnAgentPort(ChannelParts parts) {
    SpinAgentProperties.Grpc grpc = parts.properties().getGrpc();
    ScheduledExecutorService scheduler = newScheduler();
    ServerTls tls;
    try {
      tls = ServerTls.from(grpc.getSecurity(), scheduler);
    } catch (RuntimeException e) {
      scheduler.shutdownNow();
      throw e;
    }
    InetSocketAddress bindAddress = new InetSocketAddress(grpc.getAddress(), grpc.getPort());
    NettyServerBuilder transport = NettyServerBuilder.forAddress(bindAddress);
    if (tls.sslContext() != null) {
      transport.sslContext(tls.sslContext());
    }
    transport
        .keepAliveTime(grpc.getKeepAliveTime().toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveTimeout(grpc.getKeepAliveTimeout().toMillis(), TimeUnit.MILLISECONDS)
        .permitKeepAliveTime(grpc.getPermitKeepAliveTime().toMillis(), TimeUnit.MILLISECONDS)
        .permitKeepAliveWithoutCalls(true);
    String security =
        grpc.getSecurity().isEnabled()
            ? "TLS, client auth " + grpc.getSecurity().getClientAuth()
            : "plaintext";
    return start(
        transport,
        tls,
        scheduler,
        new Listening(
            bindAddress + " (spinagent.grpc.address / spinagent.grpc.port)",
            grpc.getAddress(),
            security),
        parts);
  }

  /**
   * Starts the channel on a server built by {@code transport}, which says where and how agents
   * connect (e.g. gRPC's in-process transport in specs). Everything else is as on the agent port:
   * services, authentication, frame limits and sessions. {@code spinagent.grpc.security} and the
   * keepalive settings belong to the Netty port and are not applied.
   */
  public static AgentChannel start(ServerBuilder<?> transport, ChannelParts parts) {
    return start(
        transport,
        ServerTls.NONE,
        newScheduler(),
        new Listening(
            "the " + transport.getClass().getSimpleName(),
            transport.getClass().getSimpleName(),
            "the transport's own security"),
        parts);
  }

  /**
   * How the log names where agents connect: {@code failure} when the server cannot start, {@code
   * address} (with the bound port, if any) and {@code security} once it listens.
   */
  private record Listening(String failure, String address, String security) {}

  private static AgentChannel start(
      ServerBuilder<?> transport,
      ServerTls tls,
      ScheduledExecutorService scheduler,
      Listening listening,
      ChannelParts parts) {
    SpinAgentProperties properties = parts.properties();
    SpinAgentProperties.Grpc grpc = properties.getGrpc();
    ExecutorService sinkExecutor =
        Executors.newFixedThreadPool(SINK_THREADS, DaemonThreads.numbered("spinagent-sink"));
    try {
      BearerTokens tokens =
          new BearerTokens(
              grpc.getAuth().getTokens().getValues(), grpc.getAuth().getTokens().getFile());
      AgentAuthenticator authenticator =
          new AgentAuthenticator(
              grpc.getAuth().getX509().isEnabled(), grpc.getAuth().getX509().getFilters(), tokens);
      warnWhenBindingCannotTellAgentsApart(properties, tokens);
      SessionRegistry sessions = parts.sessions();
      // A name freed by a removal is claimed again by the agents that were refused it.
      parts.accounts().addListener(sessions);
      SessionContext context =
          new SessionContext(
              parts.replicaId(),
              properties.getSessions(),
              sessions,
              parts.accounts(),
              parts.welcomeListener(),
              parts.sink(),
              parts.resumePoints(),
              sinkExecutor,
              scheduler,
              new ChannelMetrics(parts.meters(), sessions, parts.accounts()),
              parts.clock());
      HealthStatusManager health = new HealthStatusManager();
      int maxFrameBytes = (int) grpc.getMaxInboundMessageSize().toBytes();
      Server server =
          transport
              // Frames over the limit but under twice it are refused by the session with a clear
              // status; beyond that the transport resets the stream before anything is read.
              .maxInboundMessageSize(Math.max(maxFrameBytes * 2, maxFrameBytes + 1024 * 1024))
              .addService(health.getHealthService())
              .addService(
                  ServerInterceptors.intercept(
                      AgentChannelService.definition(context, maxFrameBytes), authenticator))
              .build();
      try {
        server.start();
      } catch (IOException e) {
        throw new UncheckedIOException(
            "SpinAgent cannot listen for agents on " + listening.failure() + ": " + e.getMessage(),
            e);
      }
      health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
      int port = server.getPort();
      log.info(
          "Listening for SpinAgent agents on {}{} ({})",
          listening.address(),
          port < 0 ? "" : ":" + port,
          listening.security());
      return new AgentChannel(server, tls, health, sessions, scheduler, sinkExecutor);
    } catch (RuntimeException e) {
      tls.close();
      scheduler.shutdownNow();
      sinkExecutor.shutdownNow();
      throw e;
    }
  }

  /**
   * Accounts are bound to the principal of the agent that registered them; say once, at start-up,
   * when that does not keep agents apart.
   */
  private static void warnWhenBindingCannotTellAgentsApart(
      SpinAgentProperties properties, BearerTokens tokens) {
    if (!properties.getAccounts().getBinding().isEnabled()) {
      log.warn(
          "spinagent.accounts.binding.enabled is false: any agent that can connect may serve, or"
              + " stand by for, any account whose cluster identity it reports");
      return;
    }
    SpinAgentProperties.ClientAuth clientAuth = properties.getGrpc().getSecurity().getClientAuth();
    if (!tokens.required() && clientAuth != SpinAgentProperties.ClientAuth.REQUIRE) {
      log.warn(
          "Agents may connect without credentials (spinagent.grpc.security.client-auth is {}, no"
              + " spinagent.grpc.auth.tokens): their principal is '{}', so account binding cannot"
              + " tell them apart and any of them may serve an account another registered. Give"
              + " each agent its own client certificate or named token (see docs/security.md)",
          clientAuth,
          AgentPeer.ANONYMOUS);
    }
  }

  /** The port actually bound, which differs from the configured one when that is 0. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    health.enterTerminalState();
    sessions.closeAll(
        Status.UNAVAILABLE.withDescription("Clouddriver is stopping the SpinAgent plugin"));
    server.shutdown();
    try {
      if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    scheduler.shutdownNow();
    sinkExecutor.shutdown();
    tls.close();
    log.info("Stopped listening for SpinAgent agents");
  }

  private static ScheduledExecutorService newScheduler() {
    return Executors.newScheduledThreadPool(2, DaemonThreads.numbered("spinagent-scheduler"));
  }
}
