package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.OwnerForwarder;
import io.spinagent.plugin.ha.OwnershipKeeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Routes the requests this replica cannot serve to the replica that owns their account, as the
 * ownership records say; refuses them, naming the owner and why, when that replica cannot take them
 * (none recorded, this one, or silent past {@code spinagent.ha.owner-timeout}).
 */
public final class OwnerRoutes implements RemoteRoutes {

  private final TunnelTokens tokens;
  private final OwnershipKeeper keeper;
  private final OwnerForwarder forwarder;
  private final Clock clock;

  public OwnerRoutes(
      TunnelTokens tokens, OwnershipKeeper keeper, OwnerForwarder forwarder, Clock clock) {
    this.tokens = tokens;
    this.keeper = keeper;
    this.forwarder = forwarder;
    this.clock = clock;
  }

  @Override
  public Optional<TunnelRoute> route(String account, String token, Optional<AgentAccount> known) {
    return Optional.of(decide(account, token, known));
  }

  private TunnelRoute decide(String account, String token, Optional<AgentAccount> known) {
    Optional<AccountOwner> owner;
    try {
      owner = keeper.ownerOf(account);
    } catch (RuntimeException e) {
      return TunnelRouting.unavailable(
          "cannot look up which replica serves account '" + account + "' (database: " + e + ")");
    }
    if (known.isEmpty() && owner.isEmpty() && !tokens.exists(account)) {
      return TunnelRouting.notFound(account);
    }
    if (!tokens.accepts(account, token)) {
      return TunnelRouting.unauthorized(account);
    }
    String state = known.map(a -> " (state here " + a.state() + ")").orElse("");
    if (owner.isEmpty()) {
      return TunnelRouting.unavailable(
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
      return TunnelRouting.unavailable(
          "account '"
              + account
              + "' has no connected agent"
              + state
              + ": its agent left this replica ('"
              + keeper.replicaId()
              + "') and has not reconnected to another yet");
    }
    Instant now = clock.instant();
    Duration timeout = keeper.ownerTimeout();
    if (!current.isLive(now, timeout)) {
      return TunnelRouting.unavailable(
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
}
