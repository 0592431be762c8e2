package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.grpc.session.AgentSession;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Decides where a tunnel request goes: to an agent session of this replica, to the replica that
 * owns the account (as {@link RemoteRoutes} decides, with several Clouddriver replicas), or
 * nowhere, with the status and message the client gets. Requests forwarded by another replica are
 * only ever served here, never forwarded again.
 */
public final class TunnelRouting {

  private final TunnelTokens tokens;
  private final AccountRegistry accounts;
  private final SessionRegistry sessions;
  private final RemoteRoutes remote;
  private final String replicaId;

  public TunnelRouting(
      TunnelTokens tokens,
      AccountRegistry accounts,
      SessionRegistry sessions,
      RemoteRoutes remote,
      String replicaId) {
    this.tokens = tokens;
    this.accounts = accounts;
    this.sessions = sessions;
    this.remote = remote;
    this.replicaId = replicaId;
  }

  /** One replica alone: every request is served here or refused. */
  public static TunnelRouting local(
      TunnelTokens tokens, AccountRegistry accounts, SessionRegistry sessions) {
    return new TunnelRouting(tokens, accounts, sessions, RemoteRoutes.NONE, "this replica");
  }

  /**
   * Where a tunnel request for {@code account} goes.
   *
   * @param token the bearer token the client presented, or null
   * @param forwarded whether another replica forwarded the request (with the shared secret)
   */
  public TunnelRoute route(String account, String token, boolean forwarded) {
    Optional<AgentAccount> known = accounts.find(account);
    Optional<AgentSession> session = known.flatMap(this::servingSession);
    if (session.isEmpty() && !forwarded) {
      Optional<TunnelRoute> elsewhere = remote.route(account, token, known);
      if (elsewhere.isPresent()) {
        return elsewhere.get();
      }
    }
    if (known.isEmpty() && !(forwarded && tokens.exists(account))) {
      return notFound(account);
    }
    if (!tokens.accepts(account, token)) {
      return unauthorized(account);
    }
    if (session.isPresent()) {
      return new TunnelRoute.Local(session.get());
    }
    String state = known.map(a -> " (state " + a.state() + ")").orElse("");
    return forwarded
        ? unavailable(
            "account '"
                + account
                + "' has no connected agent on replica '"
                + replicaId
                + "'"
                + state
                + ": its agent left this replica after the request was forwarded here")
        : unavailable("account '" + account + "' has no connected agent" + state);
  }

  private Optional<AgentSession> servingSession(AgentAccount account) {
    return Stream.concat(
            Stream.ofNullable(account.cachingAgentId()), account.standbyAgentIds().stream())
        .map(sessions::find)
        .flatMap(Optional::stream)
        .findFirst();
  }

  static TunnelRoute notFound(String account) {
    return new TunnelRoute.Refused(404, "NotFound", "no SpinAgent account named '" + account + "'");
  }

  static TunnelRoute unauthorized(String account) {
    return new TunnelRoute.Refused(
        401, "Unauthorized", "the tunnel token for account '" + account + "' is missing or wrong");
  }

  static TunnelRoute unavailable(String message) {
    return new TunnelRoute.Refused(503, "ServiceUnavailable", message);
  }
}
