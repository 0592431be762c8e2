package io.spinagent.plugin.accounts;

import io.spinagent.protocol.v1.AccountInfo;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

/**
 * A consistent snapshot of one account in the {@link AccountRegistry}.
 *
 * @param reported what the latest claiming agent reported (namespaces, kinds, permissions); null
 *     for an account restored from the table that no agent has claimed since
 */
public record AgentAccount(
    String name,
    ClusterIdentity cluster,
    AccountState state,
    Instant stateSince,
    String cachingAgentId,
    List<String> standbyAgentIds,
    String lastError,
    AccountInfo reported) {

  /** Whether a session of this replica serves the account, caching or standing by. */
  public boolean servedHere() {
    return cachingAgentId != null || !standbyAgentIds.isEmpty();
  }

  public List<String> agentIds() {
    return cachingAgentId == null
        ? standbyAgentIds
        : Stream.concat(Stream.of(cachingAgentId), standbyAgentIds.stream()).toList();
  }
}
