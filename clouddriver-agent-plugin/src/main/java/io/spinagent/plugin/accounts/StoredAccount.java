package io.spinagent.plugin.accounts;

import java.time.Instant;
import java.util.List;

/**
 * One row of {@code spinagent_accounts}.
 *
 * @param boundPrincipal the principal the account is bound to ({@link AccountBindings}); null while
 *     nobody is
 */
public record StoredAccount(
    String name,
    AccountSource source,
    AccountState state,
    boolean inactive,
    ClusterIdentity cluster,
    String cachingAgent,
    List<String> standbyAgents,
    String ownerReplica,
    String agentId,
    String zoneId,
    AccountPermissions permissions,
    DynamicAccountSpec definition,
    String lastError,
    int retryCount,
    String boundPrincipal,
    boolean clouddriverDefinition,
    Instant stateSince,
    Instant createdAt,
    Instant updatedAt) {}
