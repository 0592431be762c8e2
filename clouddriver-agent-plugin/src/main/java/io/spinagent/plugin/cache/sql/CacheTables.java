package io.spinagent.plugin.cache.sql;

import io.spinagent.plugin.cache.format.CacheTypes;
import io.spinagent.protocol.v1.Kind;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;

/**
 * Clouddriver's per-type cache tables as cats-sql names and creates them: {@code cats_v1_<type>}
 * and {@code cats_v1_<type>_rel}, copies of its template tables made on first use ({@code CREATE
 * TABLE IF NOT EXISTS … LIKE …}, on PostgreSQL {@code (LIKE … INCLUDING ALL)}), under the same
 * unquoted names, so PostgreSQL folds them to the lower case Clouddriver's own names get. Also the
 * {@code agent} and {@code rel_agent} values of an account's rows.
 */
public final class CacheTables {

  /** Suffix of the {@code agent} column value: {@code <account>/SpinAgentCachingAgent}. */
  public static final String AGENT_SUFFIX = "/SpinAgentCachingAgent";

  private final DSLContext jooq;
  private final CacheTypes.Dialect dialect;
  private final String tableNamespace;
  private final Set<String> created = ConcurrentHashMap.newKeySet();

  /**
   * @param tableNamespace Clouddriver's {@code sql.table-namespace}; null or blank: none
   */
  public CacheTables(DSLContext jooq, String tableNamespace) {
    this.jooq = jooq;
    this.dialect = dialectOf(jooq.dialect());
    this.tableNamespace =
        tableNamespace == null || tableNamespace.isBlank() ? null : tableNamespace;
  }

  public static CacheTypes.Dialect dialectOf(SQLDialect dialect) {
    return dialect.family() == SQLDialect.POSTGRES
        ? CacheTypes.Dialect.POSTGRES
        : CacheTypes.Dialect.MYSQL;
  }

  /** The cache type of a kind (its table's suffix): Clouddriver's name for it. */
  public static String typeOf(Kind kind) {
    String version = kind.getVersion().isEmpty() ? "v1" : kind.getVersion();
    String apiVersion = kind.getGroup().isEmpty() ? version : kind.getGroup() + "/" + version;
    return CacheTypes.forKind(apiVersion, kind.getKind());
  }

  public CacheTypes.Dialect dialect() {
    return dialect;
  }

  public String resourceTable(String type) {
    return CacheTypes.resourceTable(type, tableNamespace, dialect);
  }

  public String relTable(String type) {
    return CacheTypes.relTable(type, tableNamespace, dialect);
  }

  /** The {@code agent} column value of an account's rows. */
  public String agentColumn(String account) {
    return CacheTypes.agentColumn(account + AGENT_SUFFIX, dialect.maxAgentLength);
  }

  /**
   * The {@code rel_agent} value of both rows of an edge whose forward row points at a key of {@code
   * targetType}: {@code <targetType>:<account>/SpinAgentCachingAgent}.
   */
  public String relAgent(String targetType, String account) {
    return CacheTypes.agentColumn(
        targetType + ":" + account + AGENT_SUFFIX, dialect.maxAgentLength);
  }

  /**
   * Creates the tables of every type Clouddriver's Kubernetes provider caches and searches ({@link
   * CacheTypes#CLOUDDRIVER_TYPES}), so that its searches never wait for a table that does not
   * exist.
   */
  public void createClouddriverTables() {
    create(CacheTypes.CLOUDDRIVER_TYPES);
  }

  /**
   * Creates the tables of these types that this process has not created yet, outside any
   * transaction (DDL commits implicitly on MySQL).
   */
  void create(Collection<String> types) {
    for (String type : types) {
      if (created.contains(type)) {
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
      created.add(type);
    }
  }

  /**
   * Inside a transaction: throws {@link MissingTables} (which rolls it back) when a type's tables
   * were not created by {@link #create} yet.
   */
  void require(Collection<String> types) {
    Set<String> missing = new LinkedHashSet<>();
    for (String type : types) {
      if (type != null && !created.contains(type)) {
        missing.add(type);
      }
    }
    if (!missing.isEmpty()) {
      throw new MissingTables(missing);
    }
  }

  void require(String type) {
    if (!created.contains(type)) {
      throw new MissingTables(Set.of(type));
    }
  }

  boolean exists(String type) {
    return created.contains(type);
  }

  /** Thrown inside a transaction when a table is missing: rolled back, created, retried. */
  static final class MissingTables extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Set<String> types;

    MissingTables(Set<String> types) {
      super("missing cache tables for " + types, null, false, false);
      this.types = Set.copyOf(types);
    }

    Set<String> types() {
      return types;
    }

    /** The MissingTables that ended a transaction, or null if another failure did. */
    static MissingTables in(Throwable failure) {
      for (Throwable t = failure; t != null; t = t.getCause()) {
        if (t instanceof MissingTables missing) {
          return missing;
        }
      }
      return null;
    }
  }
}
