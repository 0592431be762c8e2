package io.spinagent.plugin.accounts;

import java.util.Collection;
import java.util.Map;

/**
 * Where operators' switching accounts off and on is recorded for every replica: the {@code
 * inactive} column of {@code spinagent_accounts} ({@link AccountTable}). A replica an agent moves
 * to reads it when the agent claims its accounts, so an account switched off through another
 * replica stays off.
 */
public interface SwitchedOffRecord {

  /** Nothing is shared: the registry's own memory is the record (a replica without a database). */
  SwitchedOffRecord NONE = names -> Map.of();

  /**
   * Whether each of {@code names} that has a record is switched off; a name without one is not in
   * the result. May read the database: never called under the registry's lock.
   *
   * @throws RuntimeException when the record cannot be read
   */
  Map<String, Boolean> switchedOff(Collection<String> names);
}
