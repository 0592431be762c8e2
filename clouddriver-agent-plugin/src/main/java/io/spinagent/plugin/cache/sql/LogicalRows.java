package io.spinagent.plugin.cache.sql;

import static io.spinagent.plugin.cache.sql.Columns.ID;
import static io.spinagent.plugin.cache.sql.Columns.REL_AGENT;
import static io.spinagent.plugin.cache.sql.Columns.REL_TYPE;
import static io.spinagent.plugin.cache.sql.Columns.table;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.plugin.cache.format.CacheKeys;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.CacheTypes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The logical rows of one transaction's accounts: application ({@code
 * kubernetes.v2:logical:applications:<app>}) and cluster rows, written while an object of the
 * account belongs to them, linked cluster → application, and deleted once nothing of the account
 * links them. Each account has its own body row of an application (the {@code agent} column names
 * it), while the application's relationship rows are shared: an account only ever checks and
 * removes its own (their {@code rel_agent} names it), so several accounts linking one application
 * in one transaction never disturb each other.
 */
final class LogicalRows {

  /** One account's logical rows in this transaction. */
  static final class Account {
    final String account;
    final String agent;
    final CommittedRows.Scope scope;
    private final Map<String, Long> before;

    /** logical key → when this process last wrote its row: the account's map until changed */
    private Map<String, Long> written;

    /** keys some row of the account stopped linking: deleted at the end if nothing links them */
    private final Set<String> toSettle = new LinkedHashSet<>();

    /** clusters whose row this transaction wrote → their application, linked at the end */
    private final Map<String, String> clusterLinks = new LinkedHashMap<>();

    private Account(String account, String agent, CommittedRows.Scope scope, Map<String, Long> w) {
      this.account = account;
      this.agent = agent;
      this.scope = scope;
      this.before = w;
      this.written = w;
    }

    /** When this process last wrote each logical row of the account, this transaction included. */
    Map<String, Long> written() {
      return written;
    }

    private Map<String, Long> forUpdate() {
      if (written == before) {
        written = new HashMap<>(before);
      }
      return written;
    }
  }

  private final DSLContext ctx;
  private final CacheTables tables;
  private final BodyRows bodies;
  private final RelationshipRows relationships;
  private final ObjectMapper mapper;
  private final long now;
  private final List<Account> accounts = new ArrayList<>();

  LogicalRows(
      DSLContext ctx,
      CacheTables tables,
      BodyRows bodies,
      RelationshipRows relationships,
      ObjectMapper mapper,
      long now) {
    this.ctx = ctx;
    this.tables = tables;
    this.bodies = bodies;
    this.relationships = relationships;
    this.mapper = mapper;
    this.now = now;
  }

  /**
   * @param written when this process last wrote each of the account's logical rows (not changed)
   */
  Account account(String account, CommittedRows.Scope scope, Map<String, Long> written) {
    Account a = new Account(account, tables.agentColumn(account), scope, written);
    accounts.add(a);
    return a;
  }

  /**
   * Writes an application or cluster row of the account unless this process wrote it in the last
   * half ttl (its cacheExpiry is informative only: cats-sql never expires rows), with, for a
   * cluster, its link to the application.
   */
  void ensure(Account a, String key, String type, String applicationKey) {
    if (key.length() > tables.dialect().maxIdLength) {
      return; // its relationship rows are filtered out as well
    }
    Long written = a.written.get(key);
    if (written != null && now - written < CacheRecord.LOGICAL_TTL_SECONDS * 500L) {
      return;
    }
    String name = CacheKeys.parse(key).map(CacheKeys.ParsedKey::name).orElse(key);
    CacheRecord record =
        new CacheRecord(
            key, type, Map.of("name", name), Derivation.sticky(), CacheRecord.LOGICAL_TTL_SECONDS);
    String body = record.toBodyJson(mapper, now);
    bodies.write(
        tables.resourceTable(type),
        new BodyRows.Body(
            a.agent, key, record.applicationColumn(), CacheRecord.bodyHash(body), body));
    a.forUpdate().put(key, now);
    if (applicationKey != null) {
      a.clusterLinks.put(key, applicationKey);
    }
  }

  /** Logical keys a row of the account stopped linking: settled at the end of the transaction. */
  void unlinked(Account a, Collection<String> keys) {
    a.toSettle.addAll(keys);
  }

  /**
   * Adds each written cluster's link to its application where it is missing, reading the clusters'
   * rows together (one query per 500, all accounts) rather than one query per cluster: a listing
   * writes every cluster of the account.
   */
  void linkClusters() {
    if (accounts.stream().allMatch(a -> a.clusterLinks.isEmpty())) {
      return;
    }
    relationships.flush(); // the rows read below are then all there is
    Map<String, RelationshipRows.Wanted> unread = new LinkedHashMap<>();
    for (Account a : accounts) {
      for (String cluster : a.clusterLinks.keySet()) {
        if (relationships.tracked(a.scope, cluster) == null) {
          unread.put(cluster, new RelationshipRows.Wanted(CacheTypes.CLUSTERS, a.scope));
        }
      }
    }
    relationships.read(unread);
    for (Account a : accounts) {
      a.clusterLinks.forEach(
          (cluster, application) -> {
            if (!relationships.tracked(a.scope, cluster).containsKey(application)) {
              relationships.addEdge(
                  a.scope, cluster, CacheTypes.CLUSTERS, application, CacheTypes.APPLICATIONS);
            }
          });
      a.clusterLinks.clear();
    }
  }

  /**
   * Deletes the logical rows an account stopped linking that no member of the account links at the
   * end of the transaction (what its rows look like then is all a reader can see): one query per
   * 500 clusters, then per 500 applications, all accounts together.
   */
  void settle() {
    if (accounts.stream().allMatch(a -> a.toSettle.isEmpty())) {
      return;
    }
    relationships.flush();
    Map<String, Account> clusters = new LinkedHashMap<>();
    Map<Account, Set<String>> applications = new LinkedHashMap<>();
    for (Account a : accounts) {
      for (String key : a.toSettle) {
        CacheKeys.parse(key)
            .ifPresent(
                parsed -> {
                  if (CacheTypes.APPLICATIONS.equals(parsed.type())) {
                    applications.computeIfAbsent(a, x -> new LinkedHashSet<>()).add(key);
                  } else {
                    clusters.put(key, a);
                  }
                });
      }
      a.toSettle.clear();
    }
    Set<String> linked = new HashSet<>();
    for (List<String> chunk : Chunks.of(clusters.keySet())) {
      linked.addAll(
          ctx.selectDistinct(ID)
              .from(table(tables.relTable(CacheTypes.CLUSTERS)))
              .where(ID.in(chunk).and(REL_TYPE.ne(CacheTypes.APPLICATIONS)))
              .fetch(ID));
    }
    clusters.forEach(
        (key, a) -> {
          if (!linked.contains(key)) {
            String application =
                CacheKeys.application(CacheKeys.parse(key).orElseThrow().application());
            delete(a, CacheTypes.CLUSTERS, key);
            relationships.deleteAll(CacheTypes.CLUSTERS, key, a.scope);
            relationships.delete(CacheTypes.APPLICATIONS, application, key, a.scope);
            applications.computeIfAbsent(a, x -> new LinkedHashSet<>()).add(application);
          }
        });
    if (applications.isEmpty()) {
      return;
    }
    relationships.flush();
    Set<List<String>> stillLinked = linkedApplications(applications);
    applications.forEach(
        (a, keys) -> {
          String relAgent = tables.relAgent(CacheTypes.APPLICATIONS, a.account);
          for (String key : keys) {
            if (!stillLinked.contains(List.of(relAgent, key))) {
              delete(a, CacheTypes.APPLICATIONS, key);
            }
          }
        });
  }

  /** ({@code rel_agent}, id) of the applications each account's rows still link. */
  private Set<List<String>> linkedApplications(Map<Account, Set<String>> applications) {
    List<List<String>> wanted = new ArrayList<>();
    applications.forEach(
        (a, keys) -> {
          String relAgent = tables.relAgent(CacheTypes.APPLICATIONS, a.account);
          keys.forEach(key -> wanted.add(List.of(relAgent, key)));
        });
    Set<List<String>> linked = new HashSet<>();
    for (List<List<String>> chunk : Chunks.of(wanted)) {
      Map<String, List<String>> idsByAgent = new LinkedHashMap<>();
      chunk.forEach(
          w -> idsByAgent.computeIfAbsent(w.get(0), x -> new ArrayList<>()).add(w.get(1)));
      List<Condition> conditions = new ArrayList<>();
      idsByAgent.forEach((agent, ids) -> conditions.add(REL_AGENT.eq(agent).and(ID.in(ids))));
      ctx.selectDistinct(REL_AGENT, ID)
          .from(table(tables.relTable(CacheTypes.APPLICATIONS)))
          .where(DSL.or(conditions))
          .fetch()
          .forEach(r -> linked.add(List.of(r.value1(), r.value2())));
    }
    return linked;
  }

  private void delete(Account a, String type, String key) {
    bodies.delete(tables.resourceTable(type), a.agent, key);
    if (a.written.containsKey(key)) {
      a.forUpdate().remove(key);
    }
  }
}
