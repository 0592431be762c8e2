package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.accounts.AgentAccount;
import java.util.Optional;

/**
 * Where a tunnel request goes when no agent session of this replica serves its account: to the
 * replica that owns it, or refused with what is known of the owner. The wiring chooses {@link
 * OwnerRoutes} when replicas share a database, {@link #NONE} when this replica works alone.
 */
@FunctionalInterface
public interface RemoteRoutes {

  /** A replica alone: nothing is served elsewhere, so the request is this replica's to refuse. */
  RemoteRoutes NONE = (account, token, known) -> Optional.empty();

  /**
   * The route for a request that no session here serves, or empty to let this replica answer it.
   *
   * @param token the bearer token the client presented, or null
   * @param known the account, when this replica's registry knows it
   */
  Optional<TunnelRoute> route(String account, String token, Optional<AgentAccount> known);
}
