package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import java.util.Optional;
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

  /** The running server, if the plugin's context is running. */
  public Optional<TunnelHttpServer> server() {
    return Optional.ofNullable(server);
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }
}
