package io.spinagent.plugin.accounts;

import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes every state change of the registry into {@code spinagent_accounts}, so the REST API of any
 * replica, and this replica after a restart, see the accounts it serves. Runs on the worker it
 * shares with {@link ClouddriverAccountBridge}, before it, so the bridge always finds the row.
 */
public final class AccountStateRecorder implements AccountLifecycleListener {

  private static final Logger log = LoggerFactory.getLogger(AccountStateRecorder.class);

  private final AccountTable table;
  private final String replicaId;
  private final Executor worker;

  public AccountStateRecorder(AccountTable table, String replicaId, Executor worker) {
    this.table = table;
    this.replicaId = replicaId;
    this.worker = worker;
  }

  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    worker.execute(
        () -> {
          try {
            table.recordState(account, replicaId);
          } catch (RuntimeException e) {
            // The registry stays right in memory; the row catches up with the account's next
            // change.
            log.warn(
                "Account '{}': cannot record state {} in spinagent_accounts: {}",
                account.name(),
                account.state(),
                e.getMessage(),
                e);
          }
        });
  }
}
