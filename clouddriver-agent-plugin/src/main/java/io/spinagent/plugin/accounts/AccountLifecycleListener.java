package io.spinagent.plugin.accounts;

/**
 * Told when an account changes state. Listeners run on the thread that caused the change and must
 * not block: hand slow work (database, Clouddriver account storage) to an executor.
 */
public interface AccountLifecycleListener {

  void onStateChange(AgentAccount account, AccountState previous);
}
