package io.spinagent.plugin.accounts

import java.time.Clock

/**
 * {@code spinagent_accounts} in memory, for one-class specs: the rules of {@link AccountTable} (a
 * name is stored once, and a REMOVED row keeps its name until deleted; counts leave REMOVED rows
 * out), without a database. A spec can make every call fail, as a database that is down would.
 */
class InMemoryAccountStore implements AccountStore {

  private final Clock clock
  private final Map<String, StoredAccount> rows = new TreeMap<>()

  /** When set, every call throws it. */
  volatile RuntimeException failure

  InMemoryAccountStore(Clock clock) {
    this.clock = clock
  }

  /** Stores a row as {@link AccountStateRecorder} would for an account of an agent's configuration. */
  synchronized StoredAccount putAgentAccount(String name, String cachingAgent, AccountState state = AccountState.ACTIVE) {
    def now = clock.instant()
    rows[name] = new StoredAccount(name, AccountSource.AGENT, state, state == AccountState.INACTIVE, null, cachingAgent,
      [], 'replica-1', null, null, AccountPermissions.NONE, null, null, 0, null, true, now, now, now)
  }

  /** As {@link AccountTable#setClouddriverDefinition}: whether SpinAgent wrote Clouddriver's definition. */
  synchronized void setClouddriverDefinition(String name, boolean written) {
    change(name, [clouddriverDefinition: written, retryCount: 0])
  }

  @Override
  void requireDynamicAccounts() {
    check()
  }

  @Override
  synchronized Optional<StoredAccount> find(String name) {
    check()
    Optional.ofNullable(rows[name])
  }

  @Override
  synchronized Map<String, StoredAccount> find(Collection<String> names) {
    check()
    rows.findAll { name, row -> names.contains(name) }
  }

  @Override
  synchronized List<StoredAccount> all() {
    check()
    List.copyOf(rows.values())
  }

  @Override
  synchronized Map<String, AccountState> states() {
    check()
    rows.collectEntries { name, row -> [(name): row.state()] }
  }

  @Override
  synchronized List<StoredAccount> dynamicAccounts() {
    check()
    rows.values().findAll { it.definition() != null }
  }

  @Override
  synchronized int countDynamic(String agentId, String zoneId) {
    check()
    rows.values().count {
      it.definition() != null && it.state() != AccountState.REMOVED &&
        (agentId == null || agentId == it.agentId()) && (zoneId == null || zoneId == it.zoneId())
    } as int
  }

  @Override
  synchronized boolean insertDynamic(DynamicAccountSpec spec, AccountSource source) {
    check()
    if (rows.containsKey(spec.name())) {
      return false
    }
    def now = clock.instant()
    rows[spec.name()] = new StoredAccount(spec.name(), source, AccountState.ORPHANED, false, null, null, [], null,
      spec.agentId(), spec.zoneId(), spec.permissions(), spec, null, 0, null, false, now, now, now)
    true
  }

  @Override
  synchronized void updateDynamic(DynamicAccountSpec spec) {
    change(spec.name(), [agentId: spec.agentId(), zoneId: spec.zoneId(), permissions: spec.permissions(), definition: spec])
  }

  @Override
  synchronized void delete(String name) {
    check()
    rows.remove(name)
  }

  @Override
  synchronized void setInactive(String name, boolean inactive) {
    change(name, [inactive: inactive])
  }

  @Override
  synchronized void recordFailure(String name, String error) {
    change(name, [lastError: error, retryCount: (rows[name]?.retryCount() ?: 0) + 1])
  }

  @Override
  synchronized void markRemoved(String name) {
    change(name, [state: AccountState.REMOVED, clouddriverDefinition: false, stateSince: clock.instant()])
  }

  /** Rewrites the named fields of a row, if there is one, as an UPDATE … WHERE name = ? would. */
  private void change(String name, Map<String, Object> fields) {
    check()
    def row = rows[name]
    if (row == null) {
      return
    }
    def components = StoredAccount.recordComponents
    def values = components.collect { c ->
      c.name == 'updatedAt' ? clock.instant() : fields.containsKey(c.name) ? fields[c.name] : c.accessor.invoke(row)
    }
    rows[name] = StoredAccount.getDeclaredConstructor(components*.type as Class[]).newInstance(values as Object[])
  }

  private void check() {
    if (failure != null) {
      throw failure
    }
  }
}
