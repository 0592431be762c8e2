package io.spinagent.plugin.accounts;

import io.spinagent.common.DaemonThreads;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The one thread ({@code spinagent-account-sync}) that writes account changes to {@code
 * spinagent_accounts} and to Clouddriver's account storage, so that both follow the registry in the
 * order it changed. It starts with its first task and is stopped with the plugin's context.
 */
public final class AccountSyncWorker extends ScheduledThreadPoolExecutor {

  public AccountSyncWorker() {
    super(1, DaemonThreads.named("spinagent-account-sync"));
  }
}
