package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/** Runs the {@link TunnelHttpServer} with the plugin's context. */
@Component
public class TunnelServerLifecycle implements SmartLifecycle {

  private final TunnelProperties tunnel;
  private final OperationsProperties operations;
  private final TunnelTokens tokens;
  private final AccountRegistry accounts;
  private final SessionRegistry sessions;
  private volatile TunnelHttpServer server;

  public TunnelServerLifecycle(
      TunnelProperties tunnel, OperationsProperties operations, TunnelTokens tokens,
      AccountRegistry accounts, SessionRegistry sessions) {
    this.tunnel = tunnel;
    this.operations = operations;
    this.tokens = tokens;
    this.accounts = accounts;
    this.sessions = sessions;
  }

  @Override
  public synchronized void start() {
    server = TunnelHttpServer.start(tunnel, operations, tokens, accounts, sessions);
  }

  @Override
  public synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /**
   * The kubeconfig through this replica's tunnel for an account.
   *
   * @throws IllegalStateException while the tunnel is not running
   */
  public String kubeconfig(String account) {
    TunnelHttpServer running = server;
    if (running == null) {
      throw new IllegalStateException("the Kubernetes API tunnel is not running");
    }
    return TunnelKubeconfig.render(account, running.clusterUrl(account), running.caCertificatePem(), tokens.issue(account));
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }
}
