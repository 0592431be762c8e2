package io.spinagent.plugin.accounts;

/** The life of an agent-served account, as operators of the Armory Scale Agent know it. */
public enum AccountState {
  /** Switched off by an operator: agents may serve it, but nothing is cached or deployable. */
  INACTIVE,
  /** An agent claimed it; its first complete listing has not arrived yet. */
  ACTIVATING,
  /** Served, and the cache holds a complete picture of it. */
  ACTIVE,
  /** Served, but its Clouddriver account definition cannot be written; see the last error. */
  FAILED,
  /** No agent serves it; it is removed when the grace period ends without one returning. */
  ORPHANED,
  /** An operator deleted it: its definition and cache rows are being removed. */
  DELETING,
  /** Gone: the grace period ended, or it was deleted. Kept only for the record. */
  REMOVED;

  /** Whether Clouddriver should know the account: it is served and switched on. */
  public boolean isServed() {
    return this == ACTIVATING || this == ACTIVE || this == FAILED;
  }
}
