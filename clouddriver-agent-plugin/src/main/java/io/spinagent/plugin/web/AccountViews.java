package io.spinagent.plugin.web;

import io.spinagent.plugin.accounts.AccountRegistry;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AccountStore;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.accounts.StoredAccount;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Accounts as the REST APIs show them: the shared records of {@code spinagent_accounts} (every
 * replica's), overlaid with this replica's live state for the accounts its sessions serve.
 */
final class AccountViews {

  private final AccountRegistry registry;
  private final AccountStore store;
  private final String replicaId;

  AccountViews(AccountRegistry registry, AccountStore store, String replicaId) {
    this.registry = registry;
    this.store = store;
    this.replicaId = replicaId;
  }

  Optional<AccountView> find(String name) {
    Optional<StoredAccount> stored = store.find(name);
    Optional<AgentAccount> live = registry.find(name);
    if (stored.isEmpty() && live.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(AccountView.of(stored.orElse(null), live.orElse(null), replicaId));
  }

  /** One page of a listing, and how many accounts matched in all. */
  record Page(List<AccountView> views, int total) {}

  /**
   * Accounts in {@code wanted} state (every state but {@code REMOVED} when null), by name: at most
   * {@code size} of them from the {@code from}th on. Only the page's accounts are read whole and
   * shown; the others cost their name and state, so that a script polling how many accounts are
   * ACTIVE stays cheap with thousands of accounts.
   */
  Page page(AccountState wanted, long from, int size) {
    Map<String, AgentAccount> live = new HashMap<>();
    registry.all().forEach(account -> live.put(account.name(), account));
    // Natural String order, as the names are shown: the database's collation may differ.
    Map<String, AccountState> states = new TreeMap<>();
    states.putAll(store.states());
    live.values().stream()
        .filter(account -> account.servedHere() || !states.containsKey(account.name()))
        .forEach(account -> states.put(account.name(), account.state()));
    List<String> matching =
        states.entrySet().stream()
            .filter(e -> isWanted(e.getValue().name(), wanted))
            .map(Map.Entry::getKey)
            .toList();
    int start = (int) Math.min(from, matching.size());
    List<String> names =
        matching.subList(start, (int) Math.min((long) start + size, matching.size()));
    Map<String, StoredAccount> stored = names.isEmpty() ? Map.of() : store.find(names);
    List<AccountView> views = new ArrayList<>(names.size());
    int total = matching.size();
    for (String name : names) {
      StoredAccount row = stored.get(name);
      AgentAccount here = live.get(name);
      AccountView view = row != null || here != null ? AccountView.of(row, here, replicaId) : null;
      // Deleted, or moved to another state (say REMOVED), since its state was read: not shown.
      if (view != null && isWanted(view.state(), wanted)) {
        views.add(view);
      } else {
        total--;
      }
    }
    return new Page(views, total);
  }

  private static boolean isWanted(String state, AccountState wanted) {
    return wanted == null
        ? !AccountState.REMOVED.name().equals(state)
        : wanted.name().equals(state);
  }
}
