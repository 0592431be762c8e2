package io.spinagent.testkit.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * Clouddriver's cats template tables as its Liquibase changelog leaves them at v5.90.0: written for
 * this testkit from clouddriver-sql/src/main/resources/db/changelog/20181120-cats.yml (tables,
 * primary key, indexes, later id widening to 352 and the application column/index) and, on
 * PostgreSQL, 20201110-field-type-postgres.yml (text columns). Per-type tables are created from
 * these by the code under test, like cats-sql does.
 */
public final class CatsTemplateTables {

  private CatsTemplateTables() {}

  static List<String> mysql() {
    return List.of(
        "CREATE TABLE IF NOT EXISTS cats_v1_resource_template ( id varchar(352) NOT NULL, agent"
            + " varchar(127) NOT NULL, application varchar(255) NULL, body_hash char(64) NOT NULL,"
            + " body longtext NOT NULL, last_updated bigint NOT NULL, CONSTRAINT cats_pk PRIMARY"
            + " KEY (id, agent), INDEX agent_body_hash_idx (agent, body_hash), INDEX"
            + " resource_last_updated_idx (last_updated), INDEX application_idx (application))"
            + " ENGINE InnoDB",
        "CREATE TABLE IF NOT EXISTS cats_v1_rel_template ( uuid char(26) NOT NULL PRIMARY KEY, id"
            + " varchar(352) NOT NULL, rel_id varchar(352) NOT NULL, rel_agent varchar(127) NOT"
            + " NULL, rel_type varchar(64) NULL, last_updated bigint NULL, INDEX id_idx (id), INDEX"
            + " rel_agent_idx (rel_agent), INDEX rel_type_idx (rel_type), INDEX rel_ids_type_idx"
            + " (id, rel_type, rel_id), INDEX rel_last_updated_idx (last_updated)) ENGINE InnoDB");
  }

  static List<String> postgres() {
    return List.of(
        "CREATE TABLE IF NOT EXISTS cats_v1_resource_template ("
            + " id text NOT NULL, agent text NOT NULL, application text NULL,"
            + " body_hash varchar(64) NOT NULL, body text NOT NULL, last_updated bigint NOT NULL,"
            + " CONSTRAINT cats_pk PRIMARY KEY (id, agent))",
        "CREATE INDEX IF NOT EXISTS agent_body_hash_idx ON cats_v1_resource_template (agent,"
            + " body_hash)",
        "CREATE INDEX IF NOT EXISTS resource_last_updated_idx ON cats_v1_resource_template"
            + " (last_updated)",
        "CREATE INDEX IF NOT EXISTS application_idx ON cats_v1_resource_template (application)",
        "CREATE TABLE IF NOT EXISTS cats_v1_rel_template ("
            + " uuid varchar(26) NOT NULL PRIMARY KEY, id text NOT NULL, rel_id text NOT NULL,"
            + " rel_agent text NOT NULL, rel_type text NULL, last_updated bigint NULL)",
        "CREATE INDEX IF NOT EXISTS id_idx ON cats_v1_rel_template (id)",
        "CREATE INDEX IF NOT EXISTS rel_agent_idx ON cats_v1_rel_template (rel_agent)",
        "CREATE INDEX IF NOT EXISTS rel_type_idx ON cats_v1_rel_template (rel_type)",
        "CREATE INDEX IF NOT EXISTS rel_ids_type_idx ON cats_v1_rel_template (id, rel_type,"
            + " rel_id)",
        "CREATE INDEX IF NOT EXISTS rel_last_updated_idx ON cats_v1_rel_template (last_updated)");
  }

  /** Creates both templates in the database of {@code db}. */
  public static void create(EmbeddedDatabase db) {
    create(db.dataSource(), "POSTGRES".equals(db.dialect()));
  }

  public static void create(DataSource dataSource, boolean postgres) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String sql : postgres ? postgres() : mysql()) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the cats template tables", e);
    }
  }
}
