package io.spinagent.plugin.web;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountTable;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.StoredAccount;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Accounts as the REST APIs show them: the shared records of {@code spinagent_accounts} (every
 * replica's), overlaid with this replica's live state for the accounts it serves.
 */
final class AccountViews {

  private final AccountRegistry registry;
  private final Optional<AccountTable> table;
  private final String replicaId;

  AccountViews(AccountRegistry registry, Optional<AccountTable> table, String replicaId) {
    this.registry = registry;
    this.table = table;
    this.replicaId = replicaId;
  }

  Optional<AccountView> find(String name) {
    Optional<StoredAccount> stored = table.flatMap(t -> t.find(name));
    Optional<AgentAccount> live = registry.find(name);
    if (stored.isEmpty() && live.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(AccountView.of(stored.orElse(null), live.orElse(null), replicaId));
  }

  /** Accounts in {@code wanted} state (every state but {@code REMOVED} when null), by name. */
  List<AccountView> all(AccountState wanted) {
    Map<String, AccountView> views = new LinkedHashMap<>();
    if (table.isPresent()) {
      for (StoredAccount stored : table.get().all()) {
        views.put(
            stored.name(),
            AccountView.of(stored, registry.find(stored.name()).orElse(null), replicaId));
      }
    }
    for (AgentAccount live : registry.all()) {
      views.putIfAbsent(live.name(), AccountView.of(null, live, replicaId));
    }
    return views.values().stream()
        .filter(
            v ->
                wanted == null
                    ? !v.state().equals(AccountState.REMOVED.name())
                    : v.state().equals(wanted.name()))
        .sorted(Comparator.comparing(AccountView::name))
        .toList();
  }
}
