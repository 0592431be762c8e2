package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.grpc.session.AgentSession;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.HighAvailability;
import io.spinagent.plugin.ha.OwnerForwarder;
import io.spinagent.plugin.ha.OwnershipKeeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Decides where a tunnel request goes: to an agent session of this replica, to the replica that
 * owns the account (several Clouddriver replicas), or nowhere, with the status and message the
 * client gets. Requests forwarded by another replica are only ever served here, never forwarded
 * again.
 */
public final class TunnelRouting {

  private final TunnelTokens tokens;
  private final AccountRegistry accounts;
  private final SessionRegistry sessions;
  private final HighAvailability ha;
  private final Clock clock;

  public TunnelRouting(
      TunnelTokens tokens,
      AccountRegistry accounts,
      SessionRegistry sessions,
      HighAvailability ha,
      Clock clock) {
    this.tokens = tokens;
    this.accounts = accounts;
    this.sessions = sessions;
    this.ha = ha;
    this.clock = clock;
  }

  /** One replica alone: every request is served here or refused. */
  public static TunnelRouting local(
      TunnelTokens tokens, AccountRegistry accounts, SessionRegistry sessions) {
    return new TunnelRouting(tokens, accounts, sessions, HighAvailability.off(), Clock.systemUTC());
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
    Optional<OwnershipKeeper> keeper = ha.keeper().filter(k -> !forwarded);
    if (session.isEmpty() && keeper.isPresent() && ha.forwarder().isPresent()) {
      return remote(account, token, known, keeper.get(), ha.forwarder().get());
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
                + replicaId()
                + "'"
                + state
                + ": its agent left this replica after the request was forwarded here")
        : unavailable("account '" + account + "' has no connected agent" + state);
  }

  private TunnelRoute remote(
      String account,
      String token,
      Optional<AgentAccount> known,
      OwnershipKeeper keeper,
      OwnerForwarder forwarder) {
    Optional<AccountOwner> owner;
    try {
      owner = keeper.ownerOf(account);
    } catch (RuntimeException e) {
      return unavailable(
          "cannot look up which replica serves account '" + account + "' (database: " + e + ")");
    }
    if (known.isEmpty() && owner.isEmpty() && !tokens.exists(account)) {
      return notFound(account);
    }
    if (!tokens.accepts(account, token)) {
      return unauthorized(account);
    }
    String state = known.map(a -> " (state here " + a.state() + ")").orElse("");
    if (owner.isEmpty()) {
      return unavailable(
          "account '"
              + account
              + "' has no connected agent on any replica"
              + state
              + "; this is replica '"
              + keeper.replicaId()
              + "'");
    }
    AccountOwner current = owner.get();
    if (current.replicaId().equals(keeper.replicaId())) {
      return unavailable(
          "account '"
              + account
              + "' has no connected agent"
              + state
              + ": its agent left this"
              + " replica ('"
              + keeper.replicaId()
              + "') and has not reconnected to another yet");
    }
    Instant now = clock.instant();
    Duration timeout = keeper.ownerTimeout();
    if (!current.isLive(now, timeout)) {
      return unavailable(
          "account '"
              + account
              + "' is owned by replica '"
              + current.replicaId()
              + "', silent for "
              + Duration.between(current.heartbeatAt(), now).toSeconds()
              + "s (spinagent.ha.owner-timeout "
              + timeout
              + "): that replica is probably gone, and the agent '"
              + current.agentId()
              + "' has not reconnected yet");
    }
    return new TunnelRoute.Forward(current, forwarder);
  }

  private Optional<AgentSession> servingSession(AgentAccount account) {
    return Stream.concat(
            Stream.ofNullable(account.cachingAgentId()), account.standbyAgentIds().stream())
        .map(sessions::find)
        .flatMap(Optional::stream)
        .findFirst();
  }

  private String replicaId() {
    return ha.keeper().map(OwnershipKeeper::replicaId).orElse("this replica");
  }

  private static TunnelRoute notFound(String account) {
    return new TunnelRoute.Refused(404, "NotFound", "no SpinAgent account named '" + account + "'");
  }

  private static TunnelRoute unauthorized(String account) {
    return new TunnelRoute.Refused(
        401, "Unauthorized", "the tunnel token for account '" + account + "' is missing or wrong");
  }

  private static TunnelRoute unavailable(String message) {
    return new TunnelRoute.Refused(503, "ServiceUnavailable", message);
  }
}
