package io.spinagent.plugin.accounts;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the principal each account is bound to is kept: in {@code spinagent_accounts} with a
 * database ({@link AccountTable}), so that every replica, and this one after a restart, holds
 * accounts to the same principal; in this replica's memory without one. A binding outlives the
 * account's agents and its removal after the grace period; only deleting the account ends it.
 */
public interface AccountBindings {

  /**
   * Binds each of {@code accounts} that nobody holds yet to {@code principal}, atomically against
   * other replicas binding the same account; returns the principal every one of them is bound to
   * now. May read and write the database: never called under the registry's lock.
   *
   * @throws RuntimeException when the bindings cannot be read or written
   */
  Map<String, String> bind(Collection<String> accounts, String principal);

  /** The account was deleted: the next agent to claim its name binds it. */
  void unbind(String account);

  /** Bindings in this replica's memory: a replica without a database. */
  static AccountBindings inMemory() {
    Map<String, String> bound = new ConcurrentHashMap<>();
    return new AccountBindings() {
      @Override
      public Map<String, String> bind(Collection<String> accounts, String principal) {
        Map<String, String> result = new HashMap<>();
        for (String account : accounts) {
          result.put(account, bound.computeIfAbsent(account, name -> principal));
        }
        return result;
      }

      @Override
      public void unbind(String account) {
        bound.remove(account);
      }
    };
  }
}
