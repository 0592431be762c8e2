package io.spinagent.plugin.cache.sql;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spinagent.plugin.accounts.AccountLifecycleListener;
import io.spinagent.plugin.accounts.AccountState;
import io.spinagent.plugin.accounts.AgentAccount;
import io.spinagent.plugin.cache.ChangeSink;
import io.spinagent.plugin.cache.CommitOutcome;
import io.spinagent.plugin.cache.ResourceVersions;
import io.spinagent.plugin.cache.SinkBatch;
import io.spinagent.plugin.cache.SinkEntry;
import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.format.ManifestCacheRecords;
import io.spinagent.plugin.cache.format.RelationshipIndex;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep6;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.util.mysql.MySQLDSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ChangeSink} that writes agent streams into Clouddriver's SQL cache ({@code
 * cats_v1_<type>} bodies and {@code cats_v1_<type>_rel} relationship rows), one transaction per
 * batch, on MySQL/MariaDB and PostgreSQL.
 *
 * <p>Rules (the same as {@link io.spinagent.plugin.cache.InMemoryObjectStore}'s): a change older
 * than the stored resourceVersion of its object is skipped; a delete leaves a tombstone in {@code
 * spinagent_objects}; a complete listing (BEGIN … END) sweeps what it did not list, in the END's
 * transaction. An object's change writes its own body row and its own relationship rows (both
 * directions); bodies carry only the empty {@code pod}/{@code service} groups Clouddriver always
 * writes, every relationship lives in {@code _rel} rows, so a Pod change never rewrites its
 * ReplicaSet. Relationship rows are diffed against what the database holds, so a replay or a
 * restart (empty memory) never duplicates them.
 *
 * <p>Statements are few per batch, not per change (round trips, not rows, bound the rate): what the
 * batch's objects have in spinagent_objects and in the relationship tables is read up front, one
 * query each per 500 objects, unless an earlier batch committed it ({@link CommittedRows}); bodies,
 * spinagent_objects rows and relationship rows, deletes included, are queued and written as
 * multi-row statements; logical rows are linked and settled once at the end of the batch. The work
 * on each object alone (parse, derive, serialise, hash) runs on helper threads from the moment a
 * batch is handed over ({@link ParallelBatch}), and the batch's thread writes queued rows whenever
 * it would otherwise wait for that work.
 */
public final class SqlCacheWriter implements ChangeSink, AccountLifecycleListener {

  /** Suffix of the {@code agent} column value: {@code <account>/SpinAgentCachingAgent}. */
  public static final String AGENT_SUFFIX = "/SpinAgentCachingAgent";

  static final String OBJECTS = "spinagent_objects";
  // column sizes of spinagent_objects (db/spinagent/changelog.yml)
  private static final int MAX_ACCOUNT = 100;
  private static final int MAX_GROUP = 150;
  private static final int MAX_KIND = 63;
  private static final int MAX_NAMESPACE = 63;
  private static final int MAX_NAME = 253;
  private static final int MAX_RV = 64;
  private static final Logger log = LoggerFactory.getLogger(SqlCacheWriter.class);
  private static final int MAX_ATTEMPTS = 32;
  private static final int MAX_ROWS_PER_STATEMENT = 500;
  private static final int MAX_CHARS_PER_STATEMENT = 512 << 10;
  private static final String APPLICATION_KEY_PREFIX = CacheKeys.application("");

  /**
   * Helper tasks that parse, derive and serialise a batch's objects alongside the batch's own
   * thread, which joins in after its up-front queries: all cores but one, one per 16 changes.
   */
  public static final int DERIVATION_HELPERS =
      Math.max(1, Runtime.getRuntime().availableProcessors() - 1);

  private static final int CHANGES_PER_HELPER = 16;

  /**
   * Queued body rows worth a round trip while derivation is behind: large enough to keep statements
   * few per batch, small enough that a batch's writing starts well before its derivation ends. Only
   * bodies are written early: they are most of a batch's database time, while relationship and
   * spinagent_objects rows are small and, written early, cost one more statement per table for
   * little overlap.
   */
  private static final int ROWS_TO_FLUSH_WHILE_DERIVING = 100;

  private static final Field<String> ID = field(unquotedName("id"), SQLDataType.VARCHAR);
  private static final Field<String> AGENT = field(unquotedName("agent"), SQLDataType.VARCHAR);
  private static final Field<String> APPLICATION =
      field(unquotedName("application"), SQLDataType.VARCHAR);
  private static final Field<String> BODY_HASH =
      field(unquotedName("body_hash"), SQLDataType.VARCHAR);
  private static final Field<String> BODY = field(unquotedName("body"), SQLDataType.CLOB);
  private static final Field<Long> LAST_UPDATED =
      field(unquotedName("last_updated"), SQLDataType.BIGINT);
  private static final Field<String> UUID = field(unquotedName("uuid"), SQLDataType.VARCHAR);
  private static final Field<String> REL_ID = field(unquotedName("rel_id"), SQLDataType.VARCHAR);
  private static final Field<String> REL_AGENT =
      field(unquotedName("rel_agent"), SQLDataType.VARCHAR);
  private static final Field<String> REL_TYPE =
      field(unquotedName("rel_type"), SQLDataType.VARCHAR);

  private static final Field<String> O_ACCOUNT =
      field(unquotedName("account"), SQLDataType.VARCHAR);
  private static final Field<String> O_GROUP =
      field(unquotedName("api_group"), SQLDataType.VARCHAR);
  private static final Field<String> O_KIND = field(unquotedName("kind"), SQLDataType.VARCHAR);
  private static final Field<String> O_NAMESPACE =
      field(unquotedName("namespace"), SQLDataType.VARCHAR);
  private static final Field<String> O_NAME = field(unquotedName("name"), SQLDataType.VARCHAR);
  private static final Field<String> O_RV =
      field(unquotedName("resource_version"), SQLDataType.VARCHAR);
  private static final Field<Boolean> O_DELETED =
      field(unquotedName("deleted"), SQLDataType.BOOLEAN);
  private static final Field<Long> O_GENERATION =
      field(unquotedName("listing_generation"), SQLDataType.BIGINT);

  private final DSLContext jooq;
  private final CacheTypes.Dialect dialect;
  private final String tableNamespace;
  private final CachedKinds kinds;
  private final Function<String, FormatOptions> accountOptions;
  private final Executor executor;
  private final Executor derivation;
  private final Clock clock;
  private final CommittedRows committed;
  private final RepeatedRowsSql objectsUpsert;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Set<String> knownTypes = ConcurrentHashMap.newKeySet();
  private final Map<String, AccountCache> accounts = new ConcurrentHashMap<>();
  private final Map<String, AccountState> latestStates = new ConcurrentHashMap<>();

  /**
   * @param accountOptions per-account settings (onlySpinnakerManaged, …); the kind filter is {@code
   *     kinds}, so its cachedTypes are ignored
   * @param executor runs each batch (one at a time per account)
   * @param derivation helps a batch parse and serialise its objects (see {@link
   *     #DERIVATION_HELPERS})
   * @param rememberedObjects most objects whose committed rows are kept in memory instead of read
   *     back by the next batch (and as many keys' relationship rows); 0 reads every batch's rows
   */
  public SqlCacheWriter(
      DSLContext jooq,
      String tableNamespace,
      CachedKinds kinds,
      Function<String, FormatOptions> accountOptions,
      Executor executor,
      Executor derivation,
      Clock clock,
      int rememberedObjects) {
    this.jooq = jooq;
    this.dialect = dialectOf(jooq.dialect());
    this.tableNamespace =
        tableNamespace == null || tableNamespace.isBlank() ? null : tableNamespace;
    this.kinds = kinds;
    this.accountOptions = accountOptions;
    this.executor = executor;
    this.derivation = derivation;
    this.clock = clock;
    this.committed = new CommittedRows(rememberedObjects);
    this.objectsUpsert = RepeatedRowsSql.of(this::renderObjectsUpsert);
  }

  static CacheTypes.Dialect dialectOf(SQLDialect dialect) {
    return dialect.family() == SQLDialect.POSTGRES
        ? CacheTypes.Dialect.POSTGRES
        : CacheTypes.Dialect.MYSQL;
  }

  /**
   * {@link #renderObjectsUpsert}'s SQL, without rendering it again (see {@link RepeatedRowsSql}).
   */
  String objectsUpsertSql(int rows) {
    return objectsUpsert.sql(rows);
  }

  /**
   * The multi-row upsert of {@code rows} spinagent_objects rows, rendered by jOOQ with this
   * writer's configuration, with a placeholder for each of the nine values a row in the order
   * {@code Tx.flushObjects} binds them: account, api_group, kind, namespace, name,
   * resource_version, deleted, listing_generation, last_updated.
   */
  String renderObjectsUpsert(int rows) {
    var insert =
        jooq.insertInto(
            table(unquotedName(OBJECTS)),
            O_ACCOUNT,
            O_GROUP,
            O_KIND,
            O_NAMESPACE,
            O_NAME,
            O_RV,
            O_DELETED,
            O_GENERATION,
            LAST_UPDATED);
    for (int i = 0; i < rows; i++) {
      insert = insert.values("", "", "", "", "", "", false, 0L, 0L);
    }
    return insert
        .onConflict(O_ACCOUNT, O_GROUP, O_KIND, O_NAMESPACE, O_NAME)
        .doUpdate()
        .set(O_RV, newValue(O_RV))
        .set(O_DELETED, newValue(O_DELETED))
        .set(O_GENERATION, newValue(O_GENERATION))
        .set(LAST_UPDATED, newValue(LAST_UPDATED))
        .getSQL(ParamType.INDEXED);
  }

  /** The value a multi-row upsert proposed for {@code column}, in the dialect's spelling. */
  <T> Field<T> newValue(Field<T> column) {
    return dialect == CacheTypes.Dialect.POSTGRES
        ? field(unquotedName("excluded", column.getName()), column.getDataType())
        : MySQLDSL.values(column);
  }

  /** The {@code agent} column value of an account's rows. */
  public String agentColumn(String account) {
    return CacheTypes.agentColumn(account + AGENT_SUFFIX, dialect.maxAgentLength);
  }

  public String resourceTable(String type) {
    return CacheTypes.resourceTable(type, tableNamespace, dialect);
  }

  public String relTable(String type) {
    return CacheTypes.relTable(type, tableNamespace, dialect);
  }

  @Override
  public CompletionStage<CommitOutcome> commit(SinkBatch batch) {
    return CompletableFuture.supplyAsync(
        () -> {
          write(batch);
          return CommitOutcome.STORED;
        },
        executor);
  }

  /**
   * An account that is gone (removed, deleted) or switched off loses its rows, so Deck stops
   * showing it; switched on again, its agent's complete listing brings them back.
   */
  @Override
  public void onStateChange(AgentAccount account, AccountState previous) {
    latestStates.put(account.name(), account.state());
    if (account.state() == AccountState.ACTIVATING || !account.state().isServed()) {
      // claimed by another stream, or no longer served here: another replica may write it next
      AccountCache cache = accounts.get(account.name());
      if (cache != null) {
        cache.forgetCommittedRows();
      }
    }
    if (account.state() == AccountState.REMOVED || account.state() == AccountState.INACTIVE) {
      AccountState purgedFor = account.state();
      CompletableFuture.runAsync(() -> purgeIfStill(account.name(), purgedFor), executor)
          .exceptionally(
              e -> {
                log.error(
                    "Account '{}' ({}): removing its cache rows failed; they stay until it is"
                        + " served and listed again, or removed again",
                    account.name(),
                    purgedFor,
                    e);
                return null;
              });
    }
  }

  private void purgeIfStill(String account, AccountState purgedFor) {
    if (latestStates.get(account) != purgedFor) {
      return; // served again since: its listing is the truth now
    }
    purge(account);
    if (purgedFor == AccountState.REMOVED) {
      latestStates.remove(account, AccountState.REMOVED);
    }
  }

  /**
   * Removes every row this writer holds of an account, as if a complete listing of each of its
   * kinds came back empty: bodies, relationships, and logical rows no other account links.
   */
  public void purge(String account) {
    List<Kind> held =
        jooq.selectDistinct(O_GROUP, O_KIND)
            .from(table(unquotedName(OBJECTS)))
            .where(O_ACCOUNT.eq(account))
            .fetch(r -> Kind.newBuilder().setGroup(r.value1()).setKind(r.value2()).build());
    if (!held.isEmpty()) {
      List<SinkEntry> entries = new ArrayList<>();
      long sequence = 0;
      for (Kind kind : held) {
        for (ResyncPhase phase :
            List.of(ResyncPhase.RESYNC_PHASE_BEGIN, ResyncPhase.RESYNC_PHASE_END)) {
          entries.add(
              new SinkEntry.Resync(
                  ResyncMarker.newBuilder()
                      .setAccount(account)
                      .setKind(kind)
                      .setPhase(phase)
                      .setResyncId("purge")
                      .setSequence(++sequence)
                      .build()));
        }
      }
      write(new SinkBatch(account, entries));
      log.info(
          "Account '{}': removed its rows from Clouddriver's cache ({} kinds)",
          account,
          held.size());
    }
    accounts.remove(account);
  }

  /** Writes one batch in one transaction (synchronously). */
  public void write(SinkBatch batch) {
    AccountCache state = accounts.computeIfAbsent(batch.account(), AccountCache::new);
    synchronized (state) {
      Set<String> types =
          new LinkedHashSet<>(List.of(CacheTypes.APPLICATIONS, CacheTypes.CLUSTERS));
      for (SinkEntry entry : batch.entries()) {
        Kind kind;
        if (entry instanceof SinkEntry.Change c) {
          kind = c.change().getKind();
        } else if (entry instanceof SinkEntry.Resync r) {
          kind = r.marker().getKind();
        } else {
          continue; // progress names no table
        }
        String type = typeOf(kind);
        if (kinds.caches(type)) {
          types.add(type);
        }
      }
      long now = clock.millis();
      FormatOptions options = accountOptions.apply(batch.account()).withCachedTypes(null);
      // started before the DDL and the up-front queries, whose round trips it overlaps
      ParallelBatch<SinkEntry, Derived> derived =
          ParallelBatch.start(
              batch.entries(),
              entry -> derive(batch.account(), entry, options, now),
              derivation,
              Math.min(DERIVATION_HELPERS, batch.entries().size() / CHANGES_PER_HELPER));
      createTables(types);
      for (int attempt = 1; ; attempt++) {
        Tx tx = new Tx(state, now, options, derived);
        try {
          jooq.transaction(cfg -> tx.run(DSL.using(cfg), batch));
        } catch (RuntimeException e) {
          // the transaction may or may not have committed: what was remembered may be wrong now
          state.forgetCommittedRows();
          MissingTables missing = missingTables(e);
          if (missing == null || attempt >= MAX_ATTEMPTS) {
            throw e;
          }
          createTables(missing.types);
          continue;
        }
        state.listings = tx.listings;
        state.logical = tx.logical;
        tx.rememberCommitted();
        return;
      }
    }
  }

  /**
   * What a change's object yields on its own, without the account's other objects: parsed,
   * filtered, its records derived, its body serialised and hashed, and the facts the account's
   * relationship index keeps about it. Null for what has no object to derive (deletes, markers,
   * kinds not cached).
   */
  private Derived derive(String account, SinkEntry entry, FormatOptions options, long now) {
    if (!(entry instanceof SinkEntry.Change c)
        || c.change().getType() == ChangeType.CHANGE_TYPE_DELETE
        || !kinds.caches(typeOf(c.change().getKind()))) {
      return null;
    }
    byte[] json = c.change().getObjectJson().toByteArray();
    JsonNode object;
    try {
      object = mapper.readTree(json);
    } catch (IOException e) {
      return new Derived(
          null, false, null, null, null, "unreadable object JSON (" + e.getMessage() + ")");
    }
    if (ManifestCacheRecords.skipReason(object, options).isPresent()) {
      return new Derived(null, true, null, null, null, null);
    }
    try {
      // an object (skipReason skips anything else), parsed for this alone; the relationship
      // index reads no member that making the manifest of it drops or adds
      ManifestCacheRecords records =
          ManifestCacheRecords.ofSent(account, json, (ObjectNode) object, options).orElseThrow();
      CacheRecord infra = records.infrastructure();
      // bodies carry the empty groups Clouddriver always writes; relationships live in _rel rows
      String body =
          new CacheRecord(
                  records.key(), records.type(), infra.attributes(), sticky(), infra.ttlSeconds())
              .toBodyJson(mapper, now);
      RelationshipIndex.Entry indexEntry = RelationshipIndex.Entry.of(account, object);
      return new Derived(indexEntry, false, records, body, CacheRecord.bodyHash(body), null);
    } catch (RuntimeException e) {
      // an object shape the derivation cannot handle: Clouddriver would skip it as well
      return new Derived(null, false, null, null, null, e.toString());
    }
  }

  /**
   * @param skipped not cached by the account's options or the ignore annotation
   * @param problem why the object cannot be cached, or null
   */
  private record Derived(
      RelationshipIndex.Entry indexEntry,
      boolean skipped,
      ManifestCacheRecords records,
      String body,
      String bodyHash,
      String problem) {}

  private static MissingTables missingTables(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MissingTables m) {
        return m;
      }
    }
    return null;
  }

  /**
   * Creates the resource and relationship tables of these types like cats-sql does, outside any
   * batch transaction (DDL commits implicitly on MySQL).
   */
  private void createTables(Set<String> types) {
    for (String type : types) {
      if (knownTypes.contains(type)) {
        continue;
      }
      String resource = resourceTable(type);
      String rel = relTable(type);
      if (dialect == CacheTypes.Dialect.POSTGRES) {
        jooq.execute(
            "CREATE TABLE IF NOT EXISTS "
                + resource
                + " (LIKE cats_v1_resource_template INCLUDING ALL)");
        jooq.execute(
            "CREATE TABLE IF NOT EXISTS " + rel + " (LIKE cats_v1_rel_template INCLUDING ALL)");
      } else {
        jooq.execute("CREATE TABLE IF NOT EXISTS " + resource + " LIKE cats_v1_resource_template");
        jooq.execute("CREATE TABLE IF NOT EXISTS " + rel + " LIKE cats_v1_rel_template");
      }
      knownTypes.add(type);
    }
  }

  static String typeOf(Kind kind) {
    return CacheTypes.forKind(apiVersion(kind), kind.getKind());
  }

  private static String apiVersion(Kind kind) {
    String version = kind.getVersion().isEmpty() ? "v1" : kind.getVersion();
    return kind.getGroup().isEmpty() ? version : kind.getGroup() + "/" + version;
  }

  private static String kindKey(Kind kind) {
    return kind.getGroup() + "/" + kind.getKind();
  }

  /** Thrown inside a transaction when a table is missing: rolled back, created, retried. */
  private static final class MissingTables extends RuntimeException {
    final Set<String> types;

    MissingTables(Set<String> types) {
      super("missing cache tables for " + types, null, false, false);
      this.types = types;
    }
  }

  /** What the writer keeps in memory per account; rebuilt by the listing after each claim. */
  private static final class AccountCache {
    final String account;
    final RelationshipIndex index;

    /** "group/kind" → keys in the index (to sweep index entries a listing did not confirm) */
    final Map<String, Set<String>> indexed = new HashMap<>();

    /** listings in progress by "group/kind"; replaced on commit */
    Map<String, Listing> listings = new HashMap<>();

    /** logical key → when this process last wrote its row; replaced on commit */
    Map<String, Long> logical = new HashMap<>();

    /** the rows {@link #committed} remembers of this account; replaced when they may be wrong */
    volatile CommittedRows.Scope scope;

    AccountCache(String account) {
      this.account = account;
      this.index = new RelationshipIndex(account);
      this.scope = new CommittedRows.Scope(account);
    }

    /**
     * Leaves every row remembered of the account behind (never to be found again, evicted in time).
     */
    void forgetCommittedRows() {
      scope = new CommittedRows.Scope(account);
    }

    Set<String> indexed(String kindKey) {
      return indexed.computeIfAbsent(kindKey, t -> new HashSet<>());
    }
  }

  private record Listing(String resyncId, long generation, Set<String> keys) {}

  /** Queued changes to one relationship table. */
  private static final class RelationshipChanges {
    /** ids all of whose rows go */
    final Set<String> cleared = new LinkedHashSet<>();

    /** id → rel_ids of rows that go */
    final Map<String, Set<String>> deleted = new LinkedHashMap<>();

    /** id → rel_id → row (uuid, id, rel_id, rel_agent, rel_type, last_updated) to insert */
    final Map<String, Map<String, Object[]>> inserted = new LinkedHashMap<>();
  }

  /** One attempt at one batch. */
  private final class Tx {
    final AccountCache state;
    final String account;
    final String agent;
    final Map<String, Listing> listings;

    /** the account's map until this batch changes it, then a copy (most batches change none) */
    Map<String, Long> logical;

    final long now;
    final FormatOptions options;
    final ParallelBatch<SinkEntry, Derived> derivation;
    final CommittedRows.Scope scope;
    DSLContext ctx;

    Tx(
        AccountCache state,
        long now,
        FormatOptions options,
        ParallelBatch<SinkEntry, Derived> derivation) {
      this.state = state;
      this.account = state.account;
      this.agent = agentColumn(account);
      this.listings = new HashMap<>(state.listings);
      this.logical = state.logical;
      this.now = now;
      this.options = options;
      this.derivation = derivation;
      this.scope = state.scope;
    }

    void run(DSLContext ctx, SinkBatch batch) {
      this.ctx = ctx;
      prefetch(batch);
      prefetchRelationships(batch);
      for (int i = 0; i < batch.entries().size(); i++) {
        SinkEntry entry = batch.entries().get(i);
        if (entry instanceof SinkEntry.Change c) {
          if (!derivation.isDone(i) && queuedRows >= ROWS_TO_FLUSH_WHILE_DERIVING) {
            // the database writes the queued bodies while the helpers derive what comes next
            flushBodies();
          }
          change(c.change(), derivation.get(i));
        } else if (entry instanceof SinkEntry.Resync r) {
          marker(r.marker());
        }
      }
      flushObjects();
      linkClusters();
      settleLogical();
      flushRelationships();
      flushBodies();
    }

    // ------------------------------------------------------------------ changes

    void change(ObjectChange c, Derived derived) {
      Kind kind = c.getKind();
      String type = typeOf(kind);
      if (!kinds.caches(type)) {
        return;
      }
      if (account.length() > MAX_ACCOUNT
          || kind.getGroup().length() > MAX_GROUP
          || kind.getKind().length() > MAX_KIND
          || c.getNamespace().length() > MAX_NAMESPACE
          || c.getName().length() > MAX_NAME
          || c.getResourceVersion().length() > MAX_RV) {
        log.warn(
            "Not caching {} {}/{} of account {}: too long for {}",
            kindKey(kind),
            c.getNamespace(),
            c.getName(),
            account,
            OBJECTS);
        return;
      }
      String key = CacheKeys.infrastructure(type, account, c.getNamespace(), c.getName());
      Listing listing = listings.get(kindKey(kind));
      if (listing != null) {
        listing.keys().add(key);
      }
      ObjectRow stored = load(kind, c.getNamespace(), c.getName());
      long generation =
          listing != null ? listing.generation() : stored != null ? stored.generation() : 0;
      if (stored != null
          && ResourceVersions.isOlder(c.getResourceVersion(), stored.resourceVersion())) {
        if (listing != null && stored.generation() < generation) {
          save(
              kind,
              c.getNamespace(),
              c.getName(),
              stored.resourceVersion(),
              stored.deleted(),
              generation);
        }
        return;
      }
      boolean delete = c.getType() == ChangeType.CHANGE_TYPE_DELETE;
      save(kind, c.getNamespace(), c.getName(), c.getResourceVersion(), delete, generation);
      if (delete) {
        uncache(key, type, kindKey(kind));
        return;
      }
      if (derived.skipped()) {
        uncache(key, type, kindKey(kind));
        return;
      }
      String problem = derived.problem();
      if (problem == null && key.length() > dialect.maxIdLength) {
        // cats-sql drops such ids too (with an error log); writing one would fail the batch forever
        problem = "longer than the " + dialect.maxIdLength + " characters of the id column";
      }
      if (problem == null && !derived.records().key().equals(key)) {
        problem = "its JSON names " + derived.records().key();
      }
      if (problem != null) {
        // never retried into success: leave it out rather than block the account's stream
        log.warn("Not caching {}: {}", key, problem);
        uncache(key, type, kindKey(kind));
        return;
      }
      state.index.put(derived.indexEntry());
      cache(derived, kindKey(kind));
    }

    /** Writes an object's body and its relationship rows to the account's other objects. */
    void cache(Derived derived, String kindKey) {
      ManifestCacheRecords records = derived.records();
      String key = records.key();
      String type = records.type();
      state.indexed(kindKey).add(key);
      CacheRecord infra = records.infrastructure();
      requireTypes(Set.of(type));
      upsertBody(type, key, infra.applicationColumn(), derived.bodyHash(), derived.body());
      records.application().ifPresent(a -> ensureLogical(a.id(), CacheTypes.APPLICATIONS, null));
      records
          .cluster()
          .ifPresent(
              cl ->
                  ensureLogical(
                      cl.id(),
                      CacheTypes.CLUSTERS,
                      records.application().map(CacheRecord::id).orElse(null)));
      Map<String, String> edges = flatten(infra.relationships());
      edges.putAll(flatten(state.index.relationshipsOf(key)));
      syncEdges(key, type, edges);
    }

    void uncache(String key, String type, String kindKey) {
      state.index.remove(key);
      state.indexed(kindKey).remove(key);
      requireTypes(Set.of(type));
      deleteBody(type, key);
      syncEdges(key, type, flatten(state.index.relationshipsOf(key)));
    }

    /**
     * Makes the relationship rows of {@code key} exactly {@code desired} (related key → its type),
     * both directions, touching only the differences; queues the logical keys it unlinked for
     * {@link #settleLogical}.
     */
    void syncEdges(String key, String type, Map<String, String> wanted) {
      Map<String, String> desired = new LinkedHashMap<>();
      wanted.forEach(
          (k, t) -> {
            if (k.length() <= dialect.maxIdLength) {
              desired.put(k, t);
            }
          });
      Set<String> types = new HashSet<>(desired.values());
      types.add(type);
      requireTypes(types);
      Map<String, String> have = relationshipRows(key, type);
      Map<String, String> gone = new LinkedHashMap<>();
      have.forEach(
          (relKey, relType) -> {
            if (!relType.equals(desired.get(relKey))) {
              gone.put(relKey, relType);
              if (CacheTypes.isLogical(relType)) {
                logicalToSettle.add(relKey);
              }
            }
          });
      requireTypes(new HashSet<>(gone.values()));
      gone.forEach(
          (relKey, relType) -> {
            deleteRelationshipRow(type, key, relKey);
            deleteRelationshipRow(relType, relKey, key);
          });
      desired.forEach(
          (relKey, relType) -> {
            if (!relType.equals(have.get(relKey))) {
              addEdge(key, type, relKey, relType);
            }
          });
    }

    /** Queues both rows of the edge src → dst (forward in src's table, reverse in dst's). */
    void addEdge(String src, String srcType, String dst, String dstType) {
      String relAgent =
          CacheTypes.agentColumn(dstType + ":" + account + AGENT_SUFFIX, dialect.maxAgentLength);
      insertRelationshipRow(srcType, src, dst, dstType, relAgent);
      insertRelationshipRow(dstType, dst, src, srcType, relAgent);
    }

    // ------------------------------------------------------------------ queued relationship rows

    /**
     * Relationship rows to delete and insert, by table, applied in that order by {@link
     * #flushRelationships}: so a row deleted and then inserted again in one batch ends up once, and
     * a row inserted and then deleted never reaches the database.
     */
    final Map<String, RelationshipChanges> pendingRelationships = new TreeMap<>();

    /**
     * The relationship rows of the batch's objects as the database holds them with this
     * transaction's queued changes applied: taken from {@link CommittedRows} or read up front for
     * the batch's objects, on first use for any other id, and kept current as changes are queued.
     * (A key names its type, so an id has rows in one table only.)
     */
    final Map<String, Map<String, String>> relationships = new HashMap<>();

    /**
     * Ids of {@link #relationships} taken from {@link CommittedRows} and not changed since:
     * remembered as they are.
     */
    final Set<String> recalledUnchanged = new HashSet<>();

    RelationshipChanges relationshipChanges(String ownerType) {
      return pendingRelationships.computeIfAbsent(
          relTable(ownerType), t -> new RelationshipChanges());
    }

    void insertRelationshipRow(
        String ownerType, String id, String relId, String relType, String relAgent) {
      relationshipChanges(ownerType)
          .inserted
          .computeIfAbsent(id, k -> new LinkedHashMap<>())
          .put(relId, new Object[] {Ulid.next(now), id, relId, relAgent, relType, now});
      Map<String, String> known = trackedForChange(id);
      if (known != null) {
        known.put(relId, relType);
      }
    }

    void deleteRelationshipRow(String ownerType, String id, String relId) {
      RelationshipChanges changes = relationshipChanges(ownerType);
      Map<String, Object[]> inserted = changes.inserted.get(id);
      if (inserted != null) {
        inserted.remove(relId);
      }
      changes.deleted.computeIfAbsent(id, k -> new LinkedHashSet<>()).add(relId);
      Map<String, String> known = trackedForChange(id);
      if (known != null) {
        known.remove(relId);
      }
    }

    void deleteAllRelationshipRows(String ownerType, String id) {
      RelationshipChanges changes = relationshipChanges(ownerType);
      changes.inserted.remove(id);
      changes.deleted.remove(id);
      changes.cleared.add(id);
      relationships.put(id, new LinkedHashMap<>());
      recalledUnchanged.remove(id);
    }

    /**
     * The queued relationship changes, before anything reads relationship tables: per table, one
     * multi-row delete per 500 ids cleared and per 500 rows deleted, then multi-row inserts.
     */
    void flushRelationships() {
      pendingRelationships.forEach(
          (table, changes) -> {
            Table<Record> t = table(unquotedName(table));
            for (List<String> ids : chunks(changes.cleared, id -> 0)) {
              ctx.deleteFrom(t).where(ID.in(ids)).execute();
            }
            List<org.jooq.Condition> rows = new ArrayList<>();
            changes.deleted.forEach(
                (id, relIds) -> {
                  for (List<String> relChunk : chunks(relIds, r -> 0)) {
                    rows.add(ID.eq(id).and(REL_ID.in(relChunk)));
                  }
                });
            // an id's rows are found through its index; OR-ed, a few hundred ids per statement
            for (List<org.jooq.Condition> chunk : chunks(rows, r -> 0)) {
              ctx.deleteFrom(t).where(DSL.or(chunk)).execute();
            }
            List<Object[]> inserts = new ArrayList<>();
            changes.inserted.values().forEach(byRelId -> inserts.addAll(byRelId.values()));
            for (List<Object[]> chunk : chunks(inserts, r -> 0)) {
              InsertValuesStep6<Record, String, String, String, String, String, Long> insert =
                  ctx.insertInto(t, UUID, ID, REL_ID, REL_AGENT, REL_TYPE, LAST_UPDATED);
              for (Object[] row : chunk) {
                insert =
                    insert.values(
                        (String) row[0],
                        (String) row[1],
                        (String) row[2],
                        (String) row[3],
                        (String) row[4],
                        (Long) row[5]);
              }
              insert.execute();
            }
          });
      pendingRelationships.clear();
    }

    /**
     * Body rows queued since the last {@link #flushBodies} (an estimate: a key may be queued
     * twice).
     */
    int queuedRows;

    /** Queues the row for {@link #flushBodies}; a later write or delete of the key replaces it. */
    void upsertBody(String type, CacheRecord record) {
      String body = record.toBodyJson(mapper, now);
      upsertBody(type, record.id(), record.applicationColumn(), CacheRecord.bodyHash(body), body);
    }

    void upsertBody(String type, String id, String application, String hash, String body) {
      queuedRows++;
      pendingBodies
          .computeIfAbsent(resourceTable(type), t -> new LinkedHashMap<>())
          .put(id, new String[] {id, application, hash, body});
    }

    /** Queues the row's delete for {@link #flushBodies}; a later write of the key replaces it. */
    void deleteBody(String type, String key) {
      pendingBodies.computeIfAbsent(resourceTable(type), t -> new LinkedHashMap<>()).put(key, null);
    }

    /** The queued body rows: per table and chunk, one multi-row delete and one multi-row upsert. */
    void flushBodies() {
      pendingBodies.forEach(
          (table, rows) -> {
            Table<Record> t = table(unquotedName(table));
            List<String> deletes = new ArrayList<>();
            List<String[]> upserts = new ArrayList<>();
            rows.forEach(
                (id, row) -> {
                  if (row == null) {
                    deletes.add(id);
                  } else {
                    upserts.add(row);
                  }
                });
            for (List<String> ids : chunks(deletes, id -> 0)) {
              ctx.deleteFrom(t).where(AGENT.eq(agent).and(ID.in(ids))).execute();
            }
            for (List<String[]> chunk : chunks(upserts, r -> r[3].length())) {
              var insert = ctx.insertInto(t, ID, AGENT, APPLICATION, BODY_HASH, BODY, LAST_UPDATED);
              for (String[] row : chunk) {
                insert = insert.values(row[0], agent, row[1], row[2], row[3], now);
              }
              insert
                  .onConflict(ID, AGENT)
                  .doUpdate()
                  .set(APPLICATION, newValue(APPLICATION))
                  .set(BODY_HASH, newValue(BODY_HASH))
                  .set(BODY, newValue(BODY))
                  .set(LAST_UPDATED, newValue(LAST_UPDATED))
                  .execute();
            }
          });
      pendingBodies.clear();
      queuedRows = 0;
    }

    /**
     * The relationship rows of the batch's objects that no earlier batch's commit is remembered
     * for, read up front: one query (a UNION ALL over their types' tables) per 500 ids.
     */
    void prefetchRelationships(SinkBatch batch) {
      Map<String, String> wanted = new LinkedHashMap<>(); // key → type
      for (SinkEntry entry : batch.entries()) {
        if (entry instanceof SinkEntry.Change c) {
          String type = typeOf(c.change().getKind());
          if (kinds.caches(type) && knownTypes.contains(type)) {
            String key =
                CacheKeys.infrastructure(
                    type, account, c.change().getNamespace(), c.change().getName());
            if (tracked(key) == null) {
              wanted.put(key, type);
            }
          }
        }
      }
      readRelationships(wanted);
    }

    /**
     * Reads the relationship rows of these ids (id → its type) into {@link #relationships}: one
     * query (a UNION ALL over their types' tables) per 500 ids.
     */
    void readRelationships(Map<String, String> ids) {
      for (List<Map.Entry<String, String>> chunk : chunks(ids.entrySet(), k -> 0)) {
        Map<String, List<String>> byType = new TreeMap<>();
        for (Map.Entry<String, String> e : chunk) {
          byType.computeIfAbsent(e.getValue(), t -> new ArrayList<>()).add(e.getKey());
          relationships.put(e.getKey(), new LinkedHashMap<>());
        }
        org.jooq.Select<org.jooq.Record3<String, String, String>> query = null;
        for (Map.Entry<String, List<String>> e : byType.entrySet()) {
          var select =
              ctx.select(ID, REL_ID, REL_TYPE)
                  .from(table(unquotedName(relTable(e.getKey()))))
                  .where(ID.in(e.getValue()));
          query = query == null ? select : query.unionAll(select);
        }
        for (Record r : query.fetch()) {
          Map<String, String> rows = relationships.get(r.get(ID));
          if (rows != null) { // null: an id equal only under the column's collation
            rows.put(r.get(REL_ID), r.get(REL_TYPE));
          }
        }
      }
    }

    /**
     * The rows of {@code id} as {@link #relationships} has them, taken from what an earlier batch
     * committed if this one has not touched them yet; null when neither knows them.
     */
    Map<String, String> tracked(String id) {
      Map<String, String> known = relationships.get(id);
      if (known == null && rememberable(id)) {
        Map<String, String> rows = committed.relationships(scope, id);
        if (rows != null) {
          known = new LinkedHashMap<>(rows);
          relationships.put(id, known);
          recalledUnchanged.add(id);
        }
      }
      return known;
    }

    /** {@link #tracked}, about to be changed: remembered again after the commit. */
    Map<String, String> trackedForChange(String id) {
      Map<String, String> known = tracked(id);
      recalledUnchanged.remove(id);
      return known;
    }

    /** The relationship rows of {@code key} (related key → its type), queued changes included. */
    Map<String, String> relationshipRows(String key, String type) {
      Map<String, String> cached = tracked(key);
      if (cached == null) {
        Map<String, String> known = new LinkedHashMap<>();
        RelationshipChanges changes = pendingRelationships.get(relTable(type));
        if (changes == null || !changes.cleared.contains(key)) {
          for (Record r :
              ctx.select(REL_ID, REL_TYPE)
                  .from(table(unquotedName(relTable(type))))
                  .where(ID.eq(key))
                  .fetch()) {
            known.put(r.get(REL_ID), r.get(REL_TYPE));
          }
        }
        if (changes != null) {
          changes.deleted.getOrDefault(key, Set.of()).forEach(known::remove);
          changes
              .inserted
              .getOrDefault(key, Map.of())
              .forEach((relId, row) -> known.put(relId, (String) row[4]));
        }
        relationships.put(key, known);
        cached = known;
      }
      return new LinkedHashMap<>(cached);
    }

    // ------------------------------------------------------------------ logical rows

    /**
     * Logical keys some row stopped linking in this batch: deleted at its end if nothing links
     * them.
     */
    final Set<String> logicalToSettle = new LinkedHashSet<>();

    /**
     * Writes an application or cluster row if this process has not written it in the last half ttl
     * (its cacheExpiry is informative only: cats-sql never expires rows), with, for a cluster, its
     * link to the application.
     */
    void ensureLogical(String key, String type, String applicationKey) {
      if (key.length() > dialect.maxIdLength) {
        return; // its relationship rows are filtered out as well
      }
      Long written = logical.get(key);
      if (written != null && now - written < CacheRecord.LOGICAL_TTL_SECONDS * 500L) {
        return;
      }
      String name = CacheKeys.parse(key).map(CacheKeys.ParsedKey::name).orElse(key);
      upsertBody(
          type,
          new CacheRecord(
              key, type, Map.of("name", name), sticky(), CacheRecord.LOGICAL_TTL_SECONDS));
      logicalForUpdate().put(key, now);
      if (applicationKey != null) {
        clusterLinks.put(key, applicationKey);
      }
    }

    /** Clusters whose row this batch wrote → their application, linked by {@link #linkClusters}. */
    final Map<String, String> clusterLinks = new LinkedHashMap<>();

    /**
     * Adds each written cluster's link to its application where it is missing, reading the
     * clusters' rows together (one query per 500) rather than one query per cluster: a listing
     * writes every cluster of the account.
     */
    void linkClusters() {
      if (clusterLinks.isEmpty()) {
        return;
      }
      flushRelationships(); // the rows read below are then all there is
      Map<String, String> unread = new LinkedHashMap<>();
      for (String key : clusterLinks.keySet()) {
        if (tracked(key) == null) {
          unread.put(key, CacheTypes.CLUSTERS);
        }
      }
      readRelationships(unread);
      clusterLinks.forEach(
          (cluster, application) -> {
            if (!relationships.get(cluster).containsKey(application)) {
              addEdge(cluster, CacheTypes.CLUSTERS, application, CacheTypes.APPLICATIONS);
            }
          });
      clusterLinks.clear();
    }

    /**
     * Deletes the logical rows in {@link #logicalToSettle} that no member of this account links at
     * the end of the batch (what the batch's rows look like then is all a reader can see): one
     * query per 500 clusters, then per 500 applications.
     */
    void settleLogical() {
      if (logicalToSettle.isEmpty()) {
        return;
      }
      flushRelationships();
      Set<String> applications = new LinkedHashSet<>();
      Map<String, String> clusters = new LinkedHashMap<>(); // cluster key → its application key
      for (String key : logicalToSettle) {
        CacheKeys.ParsedKey parsed = CacheKeys.parse(key).orElse(null);
        if (parsed == null) {
          continue;
        }
        if (CacheTypes.APPLICATIONS.equals(parsed.type())) {
          applications.add(key);
        } else {
          clusters.put(key, CacheKeys.application(parsed.application()));
        }
      }
      logicalToSettle.clear();
      Set<String> linked = new HashSet<>();
      for (List<String> chunk : chunks(clusters.keySet(), k -> 0)) {
        linked.addAll(
            ctx.selectDistinct(ID)
                .from(table(unquotedName(relTable(CacheTypes.CLUSTERS))))
                .where(ID.in(chunk).and(REL_TYPE.ne(CacheTypes.APPLICATIONS)))
                .fetch(ID));
      }
      clusters.forEach(
          (key, appKey) -> {
            if (!linked.contains(key)) {
              deleteLogical(CacheTypes.CLUSTERS, key);
              deleteAllRelationshipRows(CacheTypes.CLUSTERS, key);
              deleteRelationshipRow(CacheTypes.APPLICATIONS, appKey, key);
              applications.add(appKey);
            }
          });
      flushRelationships();
      String relAgent =
          CacheTypes.agentColumn(
              CacheTypes.APPLICATIONS + ":" + account + AGENT_SUFFIX, dialect.maxAgentLength);
      linked.clear();
      for (List<String> chunk : chunks(applications, k -> 0)) {
        linked.addAll(
            ctx.selectDistinct(ID)
                .from(table(unquotedName(relTable(CacheTypes.APPLICATIONS))))
                .where(ID.in(chunk).and(REL_AGENT.eq(relAgent)))
                .fetch(ID));
      }
      for (String appKey : applications) {
        if (!linked.contains(appKey)) {
          deleteLogical(CacheTypes.APPLICATIONS, appKey);
        }
      }
    }

    void deleteLogical(String type, String key) {
      deleteBody(type, key);
      if (logical.containsKey(key)) {
        logicalForUpdate().remove(key);
      }
    }

    Map<String, Long> logicalForUpdate() {
      if (logical == state.logical) {
        logical = new HashMap<>(logical);
      }
      return logical;
    }

    // ------------------------------------------------------------------ resync

    void marker(ResyncMarker marker) {
      Kind kind = marker.getKind();
      String type = typeOf(kind);
      if (!kinds.caches(type)) {
        return;
      }
      String kindKey = kindKey(kind);
      flushObjects(); // the queries below read spinagent_objects
      if (marker.getPhase() == ResyncPhase.RESYNC_PHASE_BEGIN) {
        Long max =
            ctx.select(DSL.max(O_GENERATION))
                .from(table(unquotedName(OBJECTS)))
                .where(
                    O_ACCOUNT
                        .eq(account)
                        .and(O_GROUP.eq(kind.getGroup()))
                        .and(O_KIND.eq(kind.getKind())))
                .fetchOne(0, Long.class);
        long generation = max == null ? 1 : max + 1;
        Listing previous = listings.get(kindKey);
        if (previous != null && previous.generation() >= generation) {
          generation = previous.generation() + 1;
        }
        listings.put(kindKey, new Listing(marker.getResyncId(), generation, new HashSet<>()));
        return;
      }
      Listing listing = listings.get(kindKey);
      if (listing == null || !listing.resyncId().equals(marker.getResyncId())) {
        return; // an END without its BEGIN: sweeping could remove objects that were never listed
      }
      listings.remove(kindKey);
      var rows =
          ctx.select(O_NAMESPACE, O_NAME, O_DELETED)
              .from(table(unquotedName(OBJECTS)))
              .where(objectsOf(kind).and(O_GENERATION.lt(listing.generation())))
              .fetch();
      for (var row : rows) {
        if (!Boolean.TRUE.equals(row.value3())) {
          uncache(
              CacheKeys.infrastructure(type, account, row.value1(), row.value2()), type, kindKey);
        }
        held.put(heldKey(kind, row.value1(), row.value2()), null); // its row goes below
      }
      ctx.deleteFrom(table(unquotedName(OBJECTS)))
          .where(objectsOf(kind).and(O_GENERATION.lt(listing.generation())))
          .execute();
      for (String key : new ArrayList<>(state.indexed(kindKey))) {
        if (!listing.keys().contains(key)) {
          uncache(key, type, kindKey);
        }
      }
    }

    // ------------------------------------------------------------------ spinagent_objects

    /**
     * What spinagent_objects holds for the batch's objects (null: no row): taken from {@link
     * CommittedRows} where an earlier batch's commit is remembered, the others read up front, one
     * query per 500 objects (index lookups by the primary key's prefix up to the namespace).
     */
    final Map<List<String>, ObjectRow> held = new HashMap<>();

    /**
     * spinagent_objects rows to write, and body rows by table then id (null: delete): written in
     * bulk.
     */
    final Map<List<String>, ObjectRow> pendingObjects = new LinkedHashMap<>();

    final Map<String, Map<String, String[]>> pendingBodies = new TreeMap<>();

    void prefetch(SinkBatch batch) {
      Set<List<String>> wanted = new LinkedHashSet<>();
      for (SinkEntry entry : batch.entries()) {
        if (entry instanceof SinkEntry.Change c) {
          List<String> k =
              heldKey(c.change().getKind(), c.change().getNamespace(), c.change().getName());
          if (!held.containsKey(k) && !recall(k)) {
            wanted.add(k);
          }
        }
      }
      for (List<List<String>> chunk : chunks(wanted, k -> 0)) {
        // Grouped by the primary key's prefix up to the namespace, so that each group is index
        // lookups of its names rather than a scan of every object of its kind.
        Map<List<String>, Set<String>> namesByNamespace = new LinkedHashMap<>();
        for (List<String> k : chunk) {
          namesByNamespace.computeIfAbsent(k.subList(0, 3), x -> new HashSet<>()).add(k.get(3));
          held.put(k, null); // absent unless found
        }
        List<org.jooq.Condition> byNamespace = new ArrayList<>();
        namesByNamespace.forEach(
            (prefix, names) ->
                byNamespace.add(
                    O_GROUP
                        .eq(prefix.get(0))
                        .and(O_KIND.eq(prefix.get(1)))
                        .and(O_NAMESPACE.eq(prefix.get(2)))
                        .and(O_NAME.in(names))));
        for (Record r :
            ctx.select(O_GROUP, O_KIND, O_NAMESPACE, O_NAME, O_RV, O_DELETED, O_GENERATION)
                .from(table(unquotedName(OBJECTS)))
                .where(O_ACCOUNT.eq(account))
                .and(DSL.or(byNamespace))
                .fetch()) {
          List<String> k =
              List.of(r.get(O_GROUP), r.get(O_KIND), r.get(O_NAMESPACE), r.get(O_NAME));
          if (held.containsKey(k)) {
            held.put(k, objectRow(r));
          }
        }
      }
    }

    List<String> heldKey(Kind kind, String namespace, String name) {
      return List.of(kind.getGroup(), kind.getKind(), namespace, name);
    }

    /**
     * Puts the object's row in {@link #held} if an earlier batch's commit is remembered; whether it
     * was.
     */
    boolean recall(List<String> heldKey) {
      ObjectRow row = committed.object(scope, objectId(heldKey));
      if (row == null) {
        return false;
      }
      held.put(heldKey, row == CommittedRows.NO_ROW ? null : row);
      return true;
    }

    /** The infrastructure key of the object a {@link #heldKey} names. */
    String objectId(List<String> heldKey) {
      String group = heldKey.get(0);
      String type = CacheTypes.forKind(group.isEmpty() ? "v1" : group + "/v1", heldKey.get(1));
      return CacheKeys.infrastructure(type, account, heldKey.get(2), heldKey.get(3));
    }

    /**
     * Remembers what this batch leaves in the database for the next batch of the account (see
     * {@link CommittedRows}), unless the account's remembered rows were forgotten meanwhile.
     */
    void rememberCommitted() {
      if (state.scope != scope) {
        return;
      }
      held.forEach((k, row) -> committed.rememberObject(scope, objectId(k), row));
      relationships.forEach(
          (id, rows) -> {
            if (rememberable(id) && !recalledUnchanged.contains(id)) {
              committed.rememberRelationships(scope, id, rows);
            }
          });
    }

    ObjectRow load(Kind kind, String namespace, String name) {
      List<String> k = heldKey(kind, namespace, name);
      if (held.containsKey(k) || recall(k)) {
        return held.get(k);
      }
      flushObjects();
      Record r =
          ctx.select(O_RV, O_DELETED, O_GENERATION)
              .from(table(unquotedName(OBJECTS)))
              .where(objectKey(kind, namespace, name))
              .fetchOne();
      return r == null ? null : objectRow(r);
    }

    ObjectRow objectRow(Record r) {
      Long generation = r.get(O_GENERATION);
      return new ObjectRow(
          r.get(O_RV), Boolean.TRUE.equals(r.get(O_DELETED)), generation == null ? 0 : generation);
    }

    /**
     * Records the object's state in {@link #held}, and queues its row for {@link #flushObjects}.
     */
    void save(
        Kind kind, String namespace, String name, String rv, boolean deleted, long generation) {
      List<String> k = heldKey(kind, namespace, name);
      ObjectRow state = new ObjectRow(rv, deleted, generation);
      held.put(k, state);
      pendingObjects.put(k, state);
    }

    /**
     * The queued spinagent_objects rows: multi-row upserts, before anything reads that table. The
     * rows are bound straight to the JDBC statement whose SQL jOOQ rendered ({@link
     * #objectsUpsertSql}): nine values a row, jOOQ's objects for each bound value took about 6 ms
     * of a 500-row statement's 18 (a probe on both databases, 2026-11-22).
     */
    void flushObjects() {
      for (List<Map.Entry<List<String>, ObjectRow>> chunk :
          chunks(pendingObjects.entrySet(), e -> 0)) {
        String sql = objectsUpsertSql(chunk.size());
        ctx.connection(
            connection -> {
              try (PreparedStatement upsert = connection.prepareStatement(sql)) {
                int i = 0;
                for (Map.Entry<List<String>, ObjectRow> e : chunk) {
                  List<String> k = e.getKey();
                  ObjectRow row = e.getValue();
                  upsert.setString(++i, account);
                  upsert.setString(++i, k.get(0));
                  upsert.setString(++i, k.get(1));
                  upsert.setString(++i, k.get(2));
                  upsert.setString(++i, k.get(3));
                  upsert.setString(++i, row.resourceVersion());
                  upsert.setBoolean(++i, row.deleted());
                  upsert.setLong(++i, row.generation());
                  upsert.setLong(++i, now);
                }
                upsert.executeUpdate();
              }
            });
      }
      pendingObjects.clear();
    }

    org.jooq.Condition objectsOf(Kind kind) {
      return O_ACCOUNT.eq(account).and(O_GROUP.eq(kind.getGroup())).and(O_KIND.eq(kind.getKind()));
    }

    org.jooq.Condition objectKey(Kind kind, String namespace, String name) {
      return objectsOf(kind).and(O_NAMESPACE.eq(namespace)).and(O_NAME.eq(name));
    }

    void requireTypes(Set<String> types) {
      Set<String> missing = new LinkedHashSet<>();
      for (String t : types) {
        if (t != null && !knownTypes.contains(t)) {
          missing.add(t);
        }
      }
      if (!missing.isEmpty()) {
        throw new MissingTables(missing);
      }
    }
  }

  /**
   * Splits rows for multi-row statements: at most {@link #MAX_ROWS_PER_STATEMENT} rows and about
   * {@link #MAX_CHARS_PER_STATEMENT} characters of body each, well inside MySQL's default
   * max_allowed_packet. JDBC drivers build each statement's packet in one buffer: past 1 MiB the
   * MariaDB driver's grows to 16 MiB, a short-lived giant allocation per statement (a garbage
   * collection on the batch's path), so several half-MiB statements are cheaper than one large one.
   */
  private static <T> List<List<T>> chunks(Collection<T> rows, ToIntFunction<T> chars) {
    List<List<T>> chunks = new ArrayList<>();
    List<T> chunk = new ArrayList<>();
    long size = 0;
    for (T row : rows) {
      int length = chars.applyAsInt(row);
      if (!chunk.isEmpty()
          && (chunk.size() >= MAX_ROWS_PER_STATEMENT || size + length > MAX_CHARS_PER_STATEMENT)) {
        chunks.add(chunk);
        chunk = new ArrayList<>();
        size = 0;
      }
      chunk.add(row);
      size += length;
    }
    if (!chunk.isEmpty()) {
      chunks.add(chunk);
    }
    return chunks;
  }

  private static Map<String, Set<String>> sticky() {
    Map<String, Set<String>> rels = new TreeMap<>();
    for (String t : CacheTypes.STICKY_TYPES) {
      rels.put(t, Set.of());
    }
    return rels;
  }

  /**
   * Whether a key's relationship rows may be remembered: not an application's, which every account
   * linking the application writes to.
   */
  private static boolean rememberable(String id) {
    return !id.startsWith(APPLICATION_KEY_PREFIX);
  }

  /** group → keys flattened to key → group. */
  private static Map<String, String> flatten(Map<String, ? extends Set<String>> grouped) {
    Map<String, String> flat = new LinkedHashMap<>();
    grouped.forEach((group, keys) -> keys.forEach(k -> flat.put(k, group)));
    return flat;
  }
}
