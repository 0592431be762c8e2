package io.spinagent.agent.cluster;

import java.util.List;

/**
 * A snapshot of one account for {@code /accounts} and {@code /health}.
 *
 * @param name account name
 * @param state where it stands
 * @param error the last error, or null; while READY, a watch problem being retried
 * @param apiServerHost the cluster's API server, once connected
 * @param kubernetesVersion gitVersion of the cluster, once connected
 * @param watchedKinds the kinds watched, as {@code Kind.group}
 * @param unwatchableKinds kinds asked for but not permitted, with the reason
 * @param objects objects the agent knows of (their keys and resourceVersions); for a kind resumed
 *     from Clouddriver's resume point, only those that changed since
 * @param attempts connection attempts so far (more than one after failures)
 * @param dynamic added by a command from Clouddriver rather than configured in the file
 */
public record AccountStatus(
    String name,
    AccountState state,
    String error,
    String apiServerHost,
    String kubernetesVersion,
    List<String> watchedKinds,
    List<String> unwatchableKinds,
    int objects,
    int attempts,
    boolean dynamic) {

  public AccountStatus {
    watchedKinds = List.copyOf(watchedKinds);
    unwatchableKinds = List.copyOf(unwatchableKinds);
  }

  /**
   * Whether the account has nothing left to do before it is in service: READY, or left to another
   * agent (STANDBY) or refused by Clouddriver (REFUSED), which watch nothing.
   */
  public boolean isSynced() {
    return state == AccountState.READY
        || state == AccountState.STANDBY
        || state == AccountState.REFUSED;
  }
}
