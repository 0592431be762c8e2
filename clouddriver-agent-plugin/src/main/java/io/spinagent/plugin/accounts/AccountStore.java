package io.spinagent.plugin.accounts;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SpinAgent's record of the accounts it knows, as the account commands, the REST views and
 * Clouddriver's {@code /credentials} see it. {@link AccountTable} keeps it in Clouddriver's SQL
 * database, shared by every replica; without a database the wiring gives {@link #NONE}, which keeps
 * nothing and refuses, with one message, what cannot work without it: dynamic accounts.
 */
public interface AccountStore {

  /** The store of a Clouddriver without a SQL database. */
  AccountStore NONE = new NoAccountStore();

  /** Refuses (503) when dynamic accounts cannot be stored here; otherwise does nothing. */
  void requireDynamicAccounts();

  Optional<StoredAccount> find(String name);

  /** The accounts among {@code names} that have a record, by name. */
  Map<String, StoredAccount> find(Collection<String> names);

  /** Every account, in name order. */
  List<StoredAccount> all();

  /** Every account's recorded state, by name. */
  Map<String, AccountState> states();

  /** Dynamic accounts (created through the API or migrated), in name order. */
  List<StoredAccount> dynamicAccounts();

  /**
   * Dynamic accounts not removed that name {@code agentId} (when not null) or {@code zoneId} (when
   * not null) as who serves them.
   */
  int countDynamic(String agentId, String zoneId);

  /** Stores a new API-created or migrated account; false when the name is taken. */
  boolean insertDynamic(DynamicAccountSpec spec, AccountSource source);

  /** Replaces a dynamic account's definition. */
  void updateDynamic(DynamicAccountSpec spec);

  /** Forgets the account's record entirely. */
  void delete(String name);

  /** Records that the account was switched off (true) or on (false) through the API. */
  void setInactive(String name, boolean inactive);

  /** Records why the account does not work. */
  void recordFailure(String name, String error);

  /** Keeps the account's record, as REMOVED and no longer owning a definition. */
  void markRemoved(String name);

  /**
   * Nothing recorded: the registry in this replica's memory is all there is. Reads find nothing;
   * what only changes a record changes nothing; storing a dynamic account is refused.
   */
  final class NoAccountStore implements AccountStore {

    static final String NO_DATABASE =
        "dynamic accounts need Clouddriver's SQL database (sql.enabled: true): SpinAgent stores"
            + " them there";

    private NoAccountStore() {}

    @Override
    public void requireDynamicAccounts() {
      throw unavailable();
    }

    @Override
    public Optional<StoredAccount> find(String name) {
      return Optional.empty();
    }

    @Override
    public Map<String, StoredAccount> find(Collection<String> names) {
      return Map.of();
    }

    @Override
    public List<StoredAccount> all() {
      return List.of();
    }

    @Override
    public Map<String, AccountState> states() {
      return Map.of();
    }

    @Override
    public List<StoredAccount> dynamicAccounts() {
      return List.of();
    }

    @Override
    public int countDynamic(String agentId, String zoneId) {
      return 0;
    }

    @Override
    public boolean insertDynamic(DynamicAccountSpec spec, AccountSource source) {
      throw unavailable();
    }

    @Override
    public void updateDynamic(DynamicAccountSpec spec) {
      throw unavailable();
    }

    @Override
    public void delete(String name) {}

    @Override
    public void setInactive(String name, boolean inactive) {}

    @Override
    public void recordFailure(String name, String error) {}

    @Override
    public void markRemoved(String name) {}

    private static AccountRequestException unavailable() {
      return new AccountRequestException(AccountRequestException.Problem.UNAVAILABLE, NO_DATABASE);
    }
  }
}
