package io.spinagent.plugin.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.spinagent.plugin.accounts.AccountPermissions;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.ClusterIdentity;
import io.spinagent.plugin.accounts.DynamicAccountSpec;
import io.spinagent.plugin.accounts.StoredAccount;
import java.time.Instant;
import java.util.List;

/**
 * An account as {@code GET /spinagent/accounts} shows it: the shared record of {@code
 * spinagent_accounts}, overlaid with this replica's live state when it serves the account. Times
 * are ISO-8601; kubeconfig contents are never shown.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AccountView(
    String name,
    String source,
    String state,
    Cluster cluster,
    String cachingAgent,
    List<String> standbyAgents,
    String boundPrincipal,
    String ownerReplica,
    String agentId,
    String zoneId,
    AccountPermissions permissions,
    DynamicAccountSpec definition,
    boolean clouddriverDefinition,
    String lastError,
    int retryCount,
    String stateSince,
    String createdAt,
    String updatedAt) {

  /** This view in {@code state} instead. */
  AccountView inState(AccountState newState) {
    return new AccountView(
        name,
        source,
        newState.name(),
        cluster,
        cachingAgent,
        standbyAgents,
        boundPrincipal,
        ownerReplica,
        agentId,
        zoneId,
        permissions,
        definition,
        clouddriverDefinition,
        lastError,
        retryCount,
        stateSince,
        createdAt,
        updatedAt);
  }

  public record Cluster(
      String apiServerHost, String caFingerprintSha256, String kubernetesVersion) {
    static Cluster of(ClusterIdentity identity) {
      return identity == null
          ? null
          : new Cluster(
              identity.apiServerHost(),
              identity.caFingerprintSha256(),
              identity.kubernetesVersion());
    }
  }

  static AccountView of(StoredAccount stored, AgentAccount live, String replicaId) {
    if (stored == null) {
      return new AccountView(
          live.name(),
          "AGENT",
          live.state().name(),
          Cluster.of(live.cluster()),
          live.cachingAgentId(),
          live.standbyAgentIds(),
          null,
          replicaId,
          null,
          null,
          permissionsOf(live),
          null,
          false,
          live.lastError(),
          0,
          time(live.stateSince()),
          null,
          null);
    }
    // This replica's state wins only while one of its sessions serves the account; once its
    // agents have gone, another replica may serve it and write the row.
    boolean liveHere = live != null && live.servedHere();
    return new AccountView(
        stored.name(),
        stored.source().name(),
        liveHere ? live.state().name() : stored.state().name(),
        Cluster.of(liveHere && live.cluster() != null ? live.cluster() : stored.cluster()),
        liveHere ? live.cachingAgentId() : stored.cachingAgent(),
        liveHere ? live.standbyAgentIds() : stored.standbyAgents(),
        stored.boundPrincipal(),
        liveHere ? replicaId : stored.ownerReplica(),
        stored.agentId(),
        stored.zoneId(),
        stored.permissions(),
        stored.definition() == null ? null : stored.definition().redacted(),
        stored.clouddriverDefinition(),
        liveHere && live.lastError() != null ? live.lastError() : stored.lastError(),
        stored.retryCount(),
        time(liveHere ? live.stateSince() : stored.stateSince()),
        time(stored.createdAt()),
        time(stored.updatedAt()));
  }

  private static AccountPermissions permissionsOf(AgentAccount live) {
    return live.reported() == null
        ? AccountPermissions.NONE
        : new AccountPermissions(
            live.reported().getPermissions().getReadList(),
            live.reported().getPermissions().getWriteList());
  }

  private static String time(Instant instant) {
    return instant == null ? null : instant.toString();
  }
}
