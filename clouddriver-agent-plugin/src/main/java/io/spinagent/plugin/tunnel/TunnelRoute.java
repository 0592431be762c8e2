package io.spinagent.plugin.tunnel;

import io.spinagent.plugin.grpc.session.AgentSession;
import io.spinagent.plugin.ha.AccountOwner;
import io.spinagent.plugin.ha.OwnerForwarder;

/** Where one tunnel request goes, as {@link TunnelRouting} decided. */
public sealed interface TunnelRoute {

  /** Over the agent session this replica holds. */
  record Local(AgentSession session) implements TunnelRoute {}

  /** To the replica that owns the account. */
  record Forward(AccountOwner owner, OwnerForwarder forwarder) implements TunnelRoute {}

  /** Nowhere: answered by the tunnel itself. */
  record Refused(int code, String reason, String message) implements TunnelRoute {}
}
