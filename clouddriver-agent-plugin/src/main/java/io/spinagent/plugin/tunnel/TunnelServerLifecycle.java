package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.config.StartupPhases;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.ha.ReplicaGroup;
import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the {@link TunnelHttpServer} with the plugin's context ({@link StartupPhases#TUNNEL}), under
 * the certificate authority the replicas share, and has it serve the requests other replicas
 * forward to this one.
 */
public final class TunnelServerLifecycle implements SmartLifecycle {

  private final TunnelProperties tunnel;
  private final OperationsProperties operations;
  private final TunnelAuthority.Store authorities;
  private final TunnelRouting routing;
  private final ReplicaGroup replicas;
  private final TunnelOperationListener listener;
  private volatile TunnelHttpServer server;

  public TunnelServerLifecycle(
      TunnelProperties tunnel,
      OperationsProperties operations,
      TunnelTokens tokens,
      TunnelAuthority.Store authorities,
      AccountRegistry accounts,
      SessionRegistry sessions,
      ReplicaGroup replicas,
      RemoteRoutes remote,
      String replicaId,
      TunnelOperationListener listener) {
    this.tunnel = tunnel;
    this.operations = operations;
    this.authorities = authorities;
    this.routing = new TunnelRouting(tokens, accounts, sessions, remote, replicaId);
    this.replicas = replicas;
    this.listener = listener;
  }

  @Override
  public synchronized void start() {
    TunnelAuthority authority = TunnelAuthority.shared(authorities);
    server = TunnelHttpServer.start(tunnel, operations, authority, routing, listener);
    replicas.serveTunnelWith(server::serveForwarded);
  }

  @Override
  public synchronized void stop() {
    if (server != null) {
      replicas.serveTunnelWith(null);
      server.close();
      server = null;
    }
  }

  /** The running server, if the plugin's context is running. */
  public Optional<TunnelHttpServer> server() {
    return Optional.ofNullable(server);
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }

  @Override
  public int getPhase() {
    return StartupPhases.TUNNEL;
  }
}
