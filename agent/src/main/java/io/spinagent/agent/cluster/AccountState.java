package io.spinagent.agent.cluster;

/** Where an account's watching stands, as {@code /accounts} shows it. */
public enum AccountState {
  /** Building the client, identifying the cluster, discovering and checking permissions. */
  CONNECTING,
  /** Informers started; not every kind has completed its first listing yet. */
  SYNCING,
  /** Every watched kind has been listed once and is being watched. */
  READY,
  /** The cluster could not be reached or used; retried with backoff. */
  FAILED,
  /** Removed from the configuration, or the agent is stopping. */
  STOPPED
}
