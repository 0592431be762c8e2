package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import org.springframework.beans.factory.ObjectProvider;
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
  private final TunnelOperationListener listener;
  private volatile TunnelHttpServer server;

  public TunnelServerLifecycle(
      TunnelProperties tunnel, OperationsProperties operations, TunnelTokens tokens,
      AccountRegistry accounts, SessionRegistry sessions, ObjectProvider<TunnelOperationListener> listener) {
    this.tunnel = tunnel;
    this.operations = operations;
    this.tokens = tokens;
    this.accounts = accounts;
    this.sessions = sessions;
    this.listener = listener.getIfAvailable(() -> TunnelOperationListener.NONE);
  }

  @Override
  public synchronized void start() {
    server = TunnelHttpServer.start(tunnel, operations, tokens, accounts, sessions, listener);
  }

  @Override
  public synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }
}
