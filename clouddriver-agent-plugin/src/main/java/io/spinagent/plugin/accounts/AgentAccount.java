package io.spinagent.plugin.accounts;

import java.time.Instant;
import java.util.List;

/** A consistent snapshot of one account in the {@link AccountRegistry}. */
public record AgentAccount(
    String name,
    ClusterIdentity cluster,
    AccountState state,
    Instant stateSince,
    String cachingAgentId,
    List<String> standbyAgentIds,
    String lastError) {}
