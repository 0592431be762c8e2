package io.spinagent.plugin.accounts;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.noCondition;
import static org.jooq.impl.DSL.table;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.plugin.store.SpinAgentSchema;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * {@code spinagent_accounts}: every account SpinAgent knows, with where it came from, its state,
 * the agents and replica serving it, the principal it is bound to, and — for accounts created
 * through the API — its definition. Shared by all Clouddriver replicas; created by {@link
 * SpinAgentSchema}.
 */
public final class AccountTable implements AccountBindings, AccountStore, SwitchedOffRecord {

  private static final Table<Record> ACCOUNTS = table("spinagent_accounts");
  private static final Field<String> NAME = field("name", String.class);
  private static final Field<String> SOURCE = field("source", String.class);
  private static final Field<String> STATE = field("state", String.class);
  private static final Field<Boolean> INACTIVE = field("inactive", Boolean.class);
  private static final Field<String> API_SERVER_HOST = field("api_server_host", String.class);
  private static final Field<String> CA_FINGERPRINT = field("ca_fingerprint", String.class);
  private static final Field<String> KUBERNETES_VERSION = field("kubernetes_version", String.class);
  private static final Field<String> CACHING_AGENT = field("caching_agent", String.class);
  private static final Field<String> STANDBY_AGENTS = field("standby_agents", String.class);
  private static final Field<String> OWNER_REPLICA = field("owner_replica", String.class);
  private static final Field<String> AGENT_ID = field("agent_id", String.class);
  private static final Field<String> ZONE_ID = field("zone_id", String.class);
  private static final Field<String> PERMISSIONS = field("permissions", String.class);
  private static final Field<String> DEFINITION = field("definition", String.class);
  private static final Field<String> LAST_ERROR = field("last_error", String.class);
  private static final Field<Integer> RETRY_COUNT = field("retry_count", Integer.class);
  private static final Field<Boolean> CLOUDDRIVER_DEFINITION =
      field("clouddriver_definition", Boolean.class);
  private static final Field<Long> STATE_SINCE = field("state_since", Long.class);
  private static final Field<Long> CREATED_AT = field("created_at", Long.class);
  private static final Field<Long> UPDATED_AT = field("updated_at", Long.class);
  private static final Field<String> BOUND_PRINCIPAL = field("bound_principal", String.class);

  /** Names per statement when many accounts are bound at once (a hello with hundreds). */
  private static final int NAMES_PER_STATEMENT = 500;

  private static final List<String> SERVED =
      List.of(
          AccountState.ACTIVATING.name(), AccountState.ACTIVE.name(), AccountState.FAILED.name());

  private final DSLContext jooq;
  private final ObjectMapper json;
  private final Clock clock;

  public AccountTable(DSLContext jooq, Clock clock) {
    this.jooq = jooq;
    // Lenient: rows written by a newer plugin version during a rolling upgrade stay readable.
    this.json = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    this.clock = clock;
  }

  /**
   * Records what the registry now says of an account served (or last served) by {@code replica},
   * unless the row holds a later state: each replica records through its own queue, so the record
   * of a replica whose agent left may reach the database after that of the replica the agent moved
   * to, or after a delete. A deleted dynamic account's row stays deleted until the account is
   * created again (which replaces the row).
   */
  public void recordState(AgentAccount account, String replica) {
    long now = clock.millis();
    long since = account.stateSince().toEpochMilli();
    ClusterIdentity cluster = account.cluster();
    String permissions =
        account.reported() == null
            ? null
            : write(
                new AccountPermissions(
                    account.reported().getPermissions().getReadList(),
                    account.reported().getPermissions().getWriteList()));
    // What the registry says, written whether the row is new or not.
    Map<Field<?>, Object> state = new LinkedHashMap<>();
    state.put(STATE, account.state().name());
    state.put(API_SERVER_HOST, cluster == null ? null : cluster.apiServerHost());
    state.put(CA_FINGERPRINT, cluster == null ? null : cluster.caFingerprintSha256());
    state.put(KUBERNETES_VERSION, cluster == null ? null : cluster.kubernetesVersion());
    state.put(CACHING_AGENT, account.cachingAgentId());
    state.put(STANDBY_AGENTS, write(account.standbyAgentIds()));
    state.put(OWNER_REPLICA, replica);
    state.put(LAST_ERROR, account.lastError());
    state.put(STATE_SINCE, since);
    state.put(UPDATED_AT, now);
    int inserted =
        jooq.insertInto(ACCOUNTS)
            .set(state)
            .set(NAME, account.name())
            .set(SOURCE, AccountSource.AGENT.name())
            .set(INACTIVE, account.state() == AccountState.INACTIVE)
            .set(PERMISSIONS, permissions)
            .set(RETRY_COUNT, 0)
            .set(CLOUDDRIVER_DEFINITION, false)
            .set(CREATED_AT, now)
            .onConflictDoNothing()
            .execute();
    if (inserted > 0) {
      return;
    }
    Condition notLater = STATE_SINCE.isNull().or(STATE_SINCE.le(since));
    Condition notDeletedDynamic =
        account.state() == AccountState.REMOVED
            ? DSL.trueCondition()
            : DSL.not(STATE.eq(AccountState.REMOVED.name()).and(DEFINITION.isNotNull()));
    jooq.update(ACCOUNTS)
        .set(state)
        .set(PERMISSIONS, DSL.coalesce(DSL.val(permissions), PERMISSIONS))
        .where(NAME.eq(account.name()))
        .and(notLater)
        .and(notDeletedDynamic)
        .execute();
  }

  @Override
  public void requireDynamicAccounts() {}

  /** Stores a new API-created or migrated account; false when the name is taken. */
  @Override
  public boolean insertDynamic(DynamicAccountSpec spec, AccountSource source) {
    long now = clock.millis();
    return jooq.insertInto(ACCOUNTS)
            .set(NAME, spec.name())
            .set(SOURCE, source.name())
            .set(STATE, AccountState.ORPHANED.name())
            .set(INACTIVE, false)
            .set(AGENT_ID, spec.agentId())
            .set(ZONE_ID, spec.zoneId())
            .set(PERMISSIONS, write(spec.permissions()))
            .set(DEFINITION, write(spec))
            .set(RETRY_COUNT, 0)
            .set(CLOUDDRIVER_DEFINITION, false)
            .set(STATE_SINCE, now)
            .set(CREATED_AT, now)
            .set(UPDATED_AT, now)
            .onConflictDoNothing()
            .execute()
        == 1;
  }

  @Override
  public void updateDynamic(DynamicAccountSpec spec) {
    jooq.update(ACCOUNTS)
        .set(AGENT_ID, spec.agentId())
        .set(ZONE_ID, spec.zoneId())
        .set(PERMISSIONS, write(spec.permissions()))
        .set(DEFINITION, write(spec))
        .set(UPDATED_AT, clock.millis())
        .where(NAME.eq(spec.name()))
        .execute();
  }

  @Override
  public void setInactive(String name, boolean inactive) {
    jooq.update(ACCOUNTS)
        .set(INACTIVE, inactive)
        .set(UPDATED_AT, clock.millis())
        .where(NAME.eq(name))
        .execute();
  }

  /** Whether SpinAgent wrote (true) or removed (false) Clouddriver's definition of the account. */
  public void setClouddriverDefinition(String name, boolean written) {
    jooq.update(ACCOUNTS)
        .set(CLOUDDRIVER_DEFINITION, written)
        .set(RETRY_COUNT, 0)
        .set(UPDATED_AT, clock.millis())
        .where(NAME.eq(name))
        .execute();
  }

  @Override
  public void recordFailure(String name, String error) {
    jooq.update(ACCOUNTS)
        .set(LAST_ERROR, error)
        .set(RETRY_COUNT, RETRY_COUNT.plus(1))
        .set(UPDATED_AT, clock.millis())
        .where(NAME.eq(name))
        .execute();
  }

  /** Keeps the account's row for the record, as REMOVED and no longer owning a definition. */
  @Override
  public void markRemoved(String name) {
    long now = clock.millis();
    jooq.update(ACCOUNTS)
        .set(STATE, AccountState.REMOVED.name())
        .set(CLOUDDRIVER_DEFINITION, false)
        .set(STATE_SINCE, now)
        .set(UPDATED_AT, now)
        .where(NAME.eq(name))
        .execute();
  }

  @Override
  public void delete(String name) {
    jooq.deleteFrom(ACCOUNTS).where(NAME.eq(name)).execute();
  }

  /**
   * Binds the accounts nobody holds to {@code principal}: a row without a principal gets it, a name
   * without a row gets a placeholder row (REMOVED, until the account's first state is recorded).
   * Both only where no principal is set, so that of replicas binding an account at once the first
   * write wins, and every replica reads that one back.
   */
  @Override
  public Map<String, String> bind(Collection<String> accounts, String principal) {
    Map<String, String> bound = new HashMap<>();
    List<String> names = List.copyOf(accounts);
    for (int from = 0; from < names.size(); from += NAMES_PER_STATEMENT) {
      bound.putAll(
          bindChunk(
              names.subList(from, Math.min(names.size(), from + NAMES_PER_STATEMENT)), principal));
    }
    return bound;
  }

  private Map<String, String> bindChunk(List<String> names, String principal) {
    Map<String, String> stored = boundPrincipals(names);
    List<String> unbound = names.stream().filter(name -> stored.get(name) == null).toList();
    if (unbound.isEmpty()) {
      return stored;
    }
    List<String> withoutRow = unbound.stream().filter(name -> !stored.containsKey(name)).toList();
    if (!withoutRow.isEmpty()) {
      long now = clock.millis();
      var insert =
          jooq.insertInto(
              ACCOUNTS,
              NAME,
              SOURCE,
              STATE,
              INACTIVE,
              RETRY_COUNT,
              CLOUDDRIVER_DEFINITION,
              STATE_SINCE,
              CREATED_AT,
              UPDATED_AT,
              BOUND_PRINCIPAL);
      for (String name : withoutRow) {
        insert =
            insert.values(
                name,
                AccountSource.AGENT.name(),
                AccountState.REMOVED.name(),
                false,
                0,
                false,
                now,
                now,
                now,
                principal);
      }
      insert.onConflictDoNothing().execute();
    }
    jooq.update(ACCOUNTS)
        .set(BOUND_PRINCIPAL, principal)
        .where(NAME.in(unbound))
        .and(BOUND_PRINCIPAL.isNull())
        .execute();
    Map<String, String> result = new HashMap<>(stored);
    result.putAll(boundPrincipals(unbound));
    return result;
  }

  /** The stored principal of each name that has a row; null for a row nobody is bound to. */
  private Map<String, String> boundPrincipals(Collection<String> names) {
    Map<String, String> bound = new HashMap<>();
    jooq.select(NAME, BOUND_PRINCIPAL)
        .from(ACCOUNTS)
        .where(NAME.in(names))
        .forEach(row -> bound.put(row.get(NAME), row.get(BOUND_PRINCIPAL)));
    return bound;
  }

  @Override
  public void unbind(String account) {
    jooq.update(ACCOUNTS).set(BOUND_PRINCIPAL, (String) null).where(NAME.eq(account)).execute();
  }

  @Override
  public Optional<StoredAccount> find(String name) {
    return jooq.select().from(ACCOUNTS).where(NAME.eq(name)).fetchOptional().map(this::read);
  }

  /** Every account, in name order. */
  @Override
  public List<StoredAccount> all() {
    return jooq.select().from(ACCOUNTS).orderBy(NAME).fetch(this::read);
  }

  /**
   * Every account's stored state, by name: what a filtered listing needs to choose its page, read
   * from two narrow columns instead of whole rows.
   */
  @Override
  public Map<String, AccountState> states() {
    Map<String, AccountState> states = new HashMap<>();
    jooq.select(NAME, STATE)
        .from(ACCOUNTS)
        .forEach(row -> states.put(row.get(NAME), AccountState.valueOf(row.get(STATE))));
    return states;
  }

  /** The accounts among {@code names} that have a row, by name. */
  @Override
  public Map<String, StoredAccount> find(Collection<String> names) {
    Map<String, StoredAccount> found = new HashMap<>();
    List<String> all = List.copyOf(names);
    for (int from = 0; from < all.size(); from += NAMES_PER_STATEMENT) {
      List<String> chunk = all.subList(from, Math.min(from + NAMES_PER_STATEMENT, all.size()));
      jooq.select()
          .from(ACCOUNTS)
          .where(NAME.in(chunk))
          .fetch(this::read)
          .forEach(account -> found.put(account.name(), account));
    }
    return found;
  }

  /**
   * Dynamic accounts not removed that name {@code agentId} (when not null) or {@code zoneId} (when
   * not null) as who serves them.
   */
  @Override
  public int countDynamic(String agentId, String zoneId) {
    return jooq.fetchCount(
        ACCOUNTS,
        DEFINITION
            .isNotNull()
            .and(STATE.ne(AccountState.REMOVED.name()))
            .and(agentId == null ? noCondition() : AGENT_ID.eq(agentId))
            .and(zoneId == null ? noCondition() : ZONE_ID.eq(zoneId)));
  }

  @Override
  public List<StoredAccount> dynamicAccounts() {
    return jooq.select()
        .from(ACCOUNTS)
        .where(DEFINITION.isNotNull())
        .orderBy(NAME)
        .fetch(this::read);
  }

  @Override
  public Map<String, Boolean> switchedOff(Collection<String> names) {
    Map<String, Boolean> switches = new HashMap<>();
    List<String> all = List.copyOf(names);
    for (int from = 0; from < all.size(); from += NAMES_PER_STATEMENT) {
      List<String> chunk = all.subList(from, Math.min(from + NAMES_PER_STATEMENT, all.size()));
      jooq.select(NAME, INACTIVE)
          .from(ACCOUNTS)
          .where(NAME.in(chunk))
          .forEach(row -> switches.put(row.value1(), Boolean.TRUE.equals(row.value2())));
    }
    return switches;
  }

  public Set<String> inactiveNames() {
    return jooq.select(NAME).from(ACCOUNTS).where(INACTIVE.isTrue()).fetch(NAME).stream()
        .collect(Collectors.toSet());
  }

  /**
   * Accounts that were served or orphaned when the replicas last wrote: they wait for their agents.
   */
  public List<StoredAccount> servedOrOrphaned() {
    return jooq.select()
        .from(ACCOUNTS)
        .where(
            STATE.in(
                AccountState.ACTIVATING.name(),
                AccountState.ACTIVE.name(),
                AccountState.FAILED.name(),
                AccountState.ORPHANED.name()))
        .fetch(this::read);
  }

  /**
   * Marks the accounts {@code replica} serves as still served: other replicas then leave them be.
   */
  public void heartbeat(String replica) {
    jooq.update(ACCOUNTS)
        .set(UPDATED_AT, clock.millis())
        .where(OWNER_REPLICA.eq(replica))
        .and(STATE.in(SERVED))
        .execute();
  }

  /**
   * Of the accounts named, those a replica other than {@code replica} recorded serving after {@code
   * since}: one query per 500 names.
   */
  public Set<String> servedElsewhere(Collection<String> names, String replica, Instant since) {
    Set<String> served = new HashSet<>();
    List<String> all = List.copyOf(names);
    for (int from = 0; from < all.size(); from += 500) {
      served.addAll(
          jooq.select(NAME)
              .from(ACCOUNTS)
              .where(NAME.in(all.subList(from, Math.min(all.size(), from + 500))))
              .and(OWNER_REPLICA.ne(replica))
              .and(STATE.in(SERVED))
              .and(UPDATED_AT.gt(since.toEpochMilli()))
              .fetch(NAME));
    }
    return served;
  }

  /**
   * Which accounts a replica other than {@code replica} recorded serving within the last {@code
   * gracePeriod}: the {@link AccountRegistry}'s question about its orphans.
   */
  public Function<Collection<String>, Set<String>> servedByAnotherReplica(
      String replica, Duration gracePeriod) {
    return names -> servedElsewhere(names, replica, clock.instant().minus(gracePeriod));
  }

  private StoredAccount read(Record row) {
    ClusterIdentity cluster =
        row.get(API_SERVER_HOST) == null
            ? null
            : new ClusterIdentity(
                row.get(API_SERVER_HOST),
                nullToEmpty(row.get(CA_FINGERPRINT)),
                nullToEmpty(row.get(KUBERNETES_VERSION)));
    return new StoredAccount(
        row.get(NAME),
        AccountSource.valueOf(row.get(SOURCE)),
        AccountState.valueOf(row.get(STATE)),
        Boolean.TRUE.equals(row.get(INACTIVE)),
        cluster,
        row.get(CACHING_AGENT),
        row.get(STANDBY_AGENTS) == null
            ? List.of()
            : read(row.get(STANDBY_AGENTS), new TypeReference<List<String>>() {}),
        row.get(OWNER_REPLICA),
        row.get(AGENT_ID),
        row.get(ZONE_ID),
        row.get(PERMISSIONS) == null
            ? AccountPermissions.NONE
            : read(row.get(PERMISSIONS), new TypeReference<>() {}),
        row.get(DEFINITION) == null
            ? null
            : read(row.get(DEFINITION), new TypeReference<DynamicAccountSpec>() {}),
        row.get(LAST_ERROR),
        row.get(RETRY_COUNT),
        row.get(BOUND_PRINCIPAL),
        Boolean.TRUE.equals(row.get(CLOUDDRIVER_DEFINITION)),
        Instant.ofEpochMilli(row.get(STATE_SINCE)),
        Instant.ofEpochMilli(row.get(CREATED_AT)),
        Instant.ofEpochMilli(row.get(UPDATED_AT)));
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot write " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }

  private <T> T read(String text, TypeReference<T> type) {
    try {
      return json.readValue(text, type);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "spinagent_accounts holds JSON this plugin cannot read: " + e.getOriginalMessage(), e);
    }
  }
}
