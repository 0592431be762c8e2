package io.spinagent.plugin.accounts;

/** The life of an agent-served account, as operators of the Armory Scale Agent know it. */
public enum AccountState {
  /** An agent claimed it; its first complete listing has not arrived yet. */
  ACTIVATING,
  /** Served, and the cache holds a complete picture of it. */
  ACTIVE,
  /** No agent serves it; it is removed when the grace period ends without one returning. */
  ORPHANED,
  /** Gone: the grace period ended, or it was withdrawn. Kept only for the record. */
  REMOVED
}
