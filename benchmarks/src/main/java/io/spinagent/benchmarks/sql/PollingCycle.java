package io.spinagent.benchmarks.sql;

import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spinagent.plugin.cache.format.AccountSnapshot;
import io.spinagent.plugin.cache.format.CacheRecord;
import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.plugin.cache.format.FormatOptions;
import io.spinagent.plugin.cache.sql.CacheTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.Record;

/**
 * The polling baseline: one cycle of Clouddriver's Kubernetes caching agent over the account. It
 * takes the complete listing (parsed from the JSON an API server would return), derives every
 * record of the account, and stores each type authoritatively the way cats-sql does: read the
 * agent's (id, body_hash) pairs, serialise and hash every record, upsert those whose hash is not
 * stored in statements of 100 rows, delete the ids it did not resend in statements of 500.
 * Statements auto-commit, as cats-sql's do. The kubectl call and network transfer of a real listing
 * are not included, which flatters this baseline.
 */
final class PollingCycle {

  /** The {@code agent} value of Clouddriver's own caching agent for the account. */
  static final String AGENT = ClusterWorkload.ACCOUNT + "/KubernetesCoreCachingAgent[1/1]";

  private static final int WRITE_BATCH = 100; // cats-sql sql.cache.write-batch-size default
  private static final int DELETE_BATCH = 500; // cats-sql sql.cache.read-batch-size default

  record Result(long nanos, int objects, int rowsRead, int rowsWritten, int rowsDeleted) {}

  private final DSLContext jooq;
  private final CacheTables names;
  private final CacheTypes.Dialect dialect;
  private final ObjectMapper mapper = new ObjectMapper();

  /** {@code names} supplies the table names only. */
  PollingCycle(DSLContext jooq, CacheTables names, CacheTypes.Dialect dialect) {
    this.jooq = jooq;
    this.names = names;
    this.dialect = dialect;
  }

  Result run(Collection<byte[]> listing) {
    long start = System.nanoTime();
    List<JsonNode> objects = new ArrayList<>(listing.size());
    for (byte[] json : listing) {
      try {
        objects.add(mapper.readTree(json));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    AccountSnapshot snapshot =
        AccountSnapshot.build(ClusterWorkload.ACCOUNT, objects, FormatOptions.DEFAULTS);
    int read = 0;
    int written = 0;
    int deleted = 0;
    long now = System.currentTimeMillis();
    for (Map.Entry<String, List<CacheRecord>> type : snapshot.byType().entrySet()) {
      String table = names.resourceTable(type.getKey());
      Set<String> storedHashes = new HashSet<>();
      Set<String> storedIds = new HashSet<>();
      for (Record r :
          jooq.select(CatsBodies.ID, CatsBodies.BODY_HASH)
              .from(table(unquotedName(table)))
              .where(CatsBodies.AGENT.eq(AGENT))
              .fetch()) {
        storedIds.add(r.get(CatsBodies.ID));
        storedHashes.add(r.get(CatsBodies.BODY_HASH));
        read++;
      }
      List<CatsBodies.Body> changed = new ArrayList<>();
      Set<String> current = new HashSet<>();
      for (CacheRecord record : type.getValue()) {
        current.add(record.id());
        String body = record.toBodyJson(mapper, now);
        String hash = CacheRecord.bodyHash(body);
        if (!storedHashes.contains(hash)) {
          changed.add(new CatsBodies.Body(record.id(), hash, body));
        }
      }
      for (int from = 0; from < changed.size(); from += WRITE_BATCH) {
        CatsBodies.upsert(
            jooq,
            dialect,
            table,
            AGENT,
            changed.subList(from, Math.min(changed.size(), from + WRITE_BATCH)),
            now);
      }
      written += changed.size();
      List<String> gone = new ArrayList<>();
      for (String id : storedIds) {
        if (!current.contains(id)) {
          gone.add(id);
        }
      }
      for (int from = 0; from < gone.size(); from += DELETE_BATCH) {
        jooq.deleteFrom(table(unquotedName(table)))
            .where(CatsBodies.ID.in(gone.subList(from, Math.min(gone.size(), from + DELETE_BATCH))))
            .execute();
      }
      deleted += gone.size();
    }
    return new Result(System.nanoTime() - start, objects.size(), read, written, deleted);
  }
}
