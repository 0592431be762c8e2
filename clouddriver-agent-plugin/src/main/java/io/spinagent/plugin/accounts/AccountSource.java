package io.spinagent.plugin.accounts;

/** Where an account comes from, which decides who may change or delete it. */
public enum AccountSource {
  /** Listed in an agent's configuration file: the agent's configuration is the authority. */
  AGENT,
  /**
   * Created through {@code POST /spinagent/accounts}: pushed to agents, changed through the API.
   */
  API,
  /**
   * Taken over from a Clouddriver-managed Kubernetes account by {@code
   * /spinagent/accounts/migrate}.
   */
  MIGRATED
}
