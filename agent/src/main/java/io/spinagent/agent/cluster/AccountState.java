package io.spinagent.agent.cluster;

/** Where an account stands, as {@code /accounts} shows it. */
public enum AccountState {
  /**
   * Waiting for its turn to start ({@code kubernetes.cacheGroupSize}), or building the client,
   * identifying the cluster, discovering and checking permissions.
   */
  CONNECTING,
  /**
   * Connected to its cluster and announced; waiting for Clouddriver to decide about it (the agent
   * is not connected to Clouddriver, or Clouddriver has not answered yet). Nothing is watched yet.
   */
  WAITING,
  /** Clouddriver streams it from this agent; not every kind has been listed or resumed yet. */
  SYNCING,
  /**
   * Every kind has been listed once (or resumed from Clouddriver's resume point) and is watched.
   */
  READY,
  /**
   * Another agent streams it: this one keeps its connection for Clouddriver's relayed requests and
   * takes over when Clouddriver promotes it. Nothing is watched.
   */
  STANDBY,
  /** Clouddriver refused it (the reason is its error). Nothing is watched. */
  REFUSED,
  /** The cluster could not be reached or used; retried with backoff. */
  FAILED,
  /** Removed from the configuration, or the agent is stopping. */
  STOPPED
}
