package io.spinagent.plugin.ha;

import com.sun.net.httpserver.HttpHandler;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.StreamsElsewhere;
import java.util.Optional;

/**
 * This replica among the Clouddriver replicas that share its database: who else serves an account
 * or holds an agent's stream, and where the requests they forward to this replica go. The wiring
 * chooses the implementation: {@link HighAvailability} when replicas share a database and {@code
 * spinagent.ha.shared-secret}, {@link #ALONE} otherwise.
 */
public interface ReplicaGroup extends AccountLifecycleListener, StreamsElsewhere {

  /** A replica that works alone: nothing is elsewhere, and nothing is forwarded to it. */
  ReplicaGroup ALONE = new Alone();

  /** The owner of {@code account}, when it is another replica that renewed its claim in time. */
  Optional<AccountOwner> liveOwnerElsewhere(String account);

  /**
   * The replica, other than this one, that holds a live stream of agent {@code agentId} (or, with a
   * null agent id, of an agent of zone {@code zoneId}): the one that would own {@code account},
   * were the agent to serve it.
   */
  Optional<AccountOwner> replicaOfAgentElsewhere(String account, String agentId, String zoneId);

  /** Where tunnel requests forwarded to this replica go; null stops serving them. */
  void serveTunnelWith(HttpHandler tunnel);

  /** Where account commands forwarded to this replica go; null stops serving them. */
  void serveCommandsWith(HttpHandler commands);

  /** The address other replicas forward to, while this replica serves them; otherwise null. */
  String forwardingUrl();

  /** The group of one. */
  final class Alone implements ReplicaGroup {

    private Alone() {}

    @Override
    public void onStateChange(AgentAccount account, AccountState previous) {}

    @Override
    public Optional<String> replicaServing(String account) {
      return Optional.empty();
    }

    @Override
    public Optional<AccountOwner> liveOwnerElsewhere(String account) {
      return Optional.empty();
    }

    @Override
    public Optional<AccountOwner> replicaOfAgentElsewhere(
        String account, String agentId, String zoneId) {
      return Optional.empty();
    }

    @Override
    public void serveTunnelWith(HttpHandler tunnel) {}

    @Override
    public void serveCommandsWith(HttpHandler commands) {}

    @Override
    public String forwardingUrl() {
      return null;
    }
  }
}
