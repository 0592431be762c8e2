package io.spinagent.plugin.grpc.session;

import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.ConnectedAgents;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agents connected to this replica, by agent id: one live session per id. When an account is
 * removed, the sessions whose claim of its name was refused claim it again.
 */
public final class SessionRegistry implements ConnectedAgents, AccountLifecycleListener {

  private final ConcurrentHashMap<String, AgentSession> byAgentId = new ConcurrentHashMap<>();

  /** Registers the session, or returns the one already holding its agent id. */
  Optional<AgentSession> register(AgentSession session) {
    return Optional.ofNullable(byAgentId.putIfAbsent(session.agentId(), session));
  }

  void unregister(AgentSession session) {
    byAgentId.remove(session.agentId(), session);
  }

  public Optional<AgentSession> find(String agentId) {
    return Optional.ofNullable(byAgentId.get(agentId));
  }

  @Override
  public Collection<AgentSession> all() {
    return List.copyOf(byAgentId.values());
  }

  public int size() {
    return byAgentId.size();
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    if (account.state() == AccountState.REMOVED) {
      all().forEach(session -> session.claimAgain(account.name()));
    }
  }

  /** Ends every session, e.g. when the plugin stops. */
  public void closeAll(io.grpc.Status status) {
    all().forEach(session -> session.close(status));
  }
}
