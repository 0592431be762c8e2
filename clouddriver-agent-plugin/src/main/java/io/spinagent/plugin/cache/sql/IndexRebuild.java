package io.spinagent.plugin.cache.sql;

import static io.spinagent.plugin.cache.sql.Columns.ACCOUNT;
import static io.spinagent.plugin.cache.sql.Columns.AGENT;
import static io.spinagent.plugin.cache.sql.Columns.API_GROUP;
import static io.spinagent.plugin.cache.sql.Columns.BODY;
import static io.spinagent.plugin.cache.sql.Columns.DELETED;
import static io.spinagent.plugin.cache.sql.Columns.ID;
import static io.spinagent.plugin.cache.sql.Columns.KIND;
import static io.spinagent.plugin.cache.sql.Columns.table;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.RelationshipIndex;
import io.spinagent.protocol.v1.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.Cursor;
import org.jooq.DSLContext;
import org.jooq.Record3;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the relationship index of accounts whose index cannot be trusted — new to this process,
 * or claimed since it was built (another replica may have written) — from the bodies the cache
 * holds of them. The relationships written for a change are computed from the index, so it must
 * know every cached object of the account: an agent that resumes its watches instead of listing
 * sends nothing that would teach it. One query for the accounts' kinds, then one per cache type per
 * 500 accounts, for all such accounts of a transaction together.
 */
final class IndexRebuild {

  private static final Logger log = LoggerFactory.getLogger(IndexRebuild.class);
  private static final int FETCH_SIZE = 500;

  private final DSLContext ctx;
  private final CacheTables tables;
  private final CachedKinds kinds;
  private final ObjectMapper mapper;

  IndexRebuild(DSLContext ctx, CacheTables tables, CachedKinds kinds, ObjectMapper mapper) {
    this.ctx = ctx;
    this.tables = tables;
    this.kinds = kinds;
    this.mapper = mapper;
  }

  /** Rebuilds the index of each of these accounts from what the cache holds of it. */
  void rebuild(List<AccountWork> accounts) {
    if (accounts.isEmpty()) {
      return;
    }
    Map<String, AccountWork> byAccount = new LinkedHashMap<>();
    for (AccountWork work : accounts) {
      work.memory().resetIndex();
      byAccount.put(work.account(), work);
    }
    // type → agent column value → the account's work
    Map<String, Map<String, AccountWork>> byType = new LinkedHashMap<>();
    for (List<String> chunk : Chunks.of(byAccount.keySet())) {
      ctx.selectDistinct(ACCOUNT, API_GROUP, KIND)
          .from(table(ObjectVersions.TABLE))
          .where(ACCOUNT.in(chunk).and(DELETED.eq(false)))
          .fetch()
          .forEach(
              r -> {
                String type =
                    CacheTables.typeOf(
                        Kind.newBuilder().setGroup(r.value2()).setKind(r.value3()).build());
                AccountWork work = byAccount.get(r.value1());
                if (work != null && kinds.caches(type) && tables.exists(type)) {
                  byType
                      .computeIfAbsent(type, t -> new LinkedHashMap<>())
                      .put(tables.agentColumn(work.account()), work);
                }
              });
    }
    byType.forEach(
        (type, byAgent) -> {
          for (List<String> agents : Chunks.of(byAgent.keySet())) {
            // streamed: the bodies of hundreds of accounts need not fit in memory at once
            try (Cursor<Record3<String, String, String>> bodies =
                ctx.select(AGENT, ID, BODY)
                    .from(table(tables.resourceTable(type)))
                    .where(AGENT.in(agents))
                    .fetchSize(FETCH_SIZE)
                    .fetchLazy()) {
              for (Record3<String, String, String> r : bodies) {
                index(byAgent.get(r.value1()), r.value2(), r.value3());
              }
            }
          }
        });
    accounts.forEach(AccountWork::indexRebuilt);
  }

  private void index(AccountWork work, String id, String body) {
    if (work == null) {
      return; // an agent value equal only under the column's collation
    }
    JsonNode manifest;
    try {
      manifest = mapper.readTree(body).path("attributes").path("manifest");
    } catch (JsonProcessingException e) {
      log.warn(
          "Account '{}': the body of {} is not JSON; left out of its index", work.account(), id);
      return;
    }
    if (!manifest.isObject()) {
      return;
    }
    try {
      RelationshipIndex.Entry entry = RelationshipIndex.Entry.of(work.account(), manifest);
      work.memory().index().put(entry);
      String group = CacheTypes.apiGroup(manifest.path("apiVersion").asText(null));
      work.memory().indexed(group + "/" + manifest.path("kind").asText()).add(id);
    } catch (RuntimeException e) {
      log.warn(
          "Account '{}': the manifest of {} cannot be indexed: {}",
          work.account(),
          id,
          e.toString());
    }
  }
}
