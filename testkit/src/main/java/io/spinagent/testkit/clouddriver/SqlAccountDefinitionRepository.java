package io.spinagent.testkit.clouddriver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.netflix.spinnaker.clouddriver.jackson.AccountDefinitionModule;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionSecretManager;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionTypes;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition;
import com.netflix.spinnaker.kork.secrets.SecretSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Clouddriver's account storage on a real database, as its clouddriver-sql module keeps it (that
 * module is not on Maven Central): definitions serialized by Clouddriver's own {@link
 * AccountDefinitionMapper} into {@code accounts}, each change also appended to {@code
 * accounts_history}. What the plugin writes here is what Clouddriver's credentials poller reads.
 */
public final class SqlAccountDefinitionRepository implements AccountDefinitionRepository {

  private final DataSource dataSource;
  private final boolean postgres;
  private final AccountDefinitionMapper mapper;

  public SqlAccountDefinitionRepository(DataSource dataSource, boolean postgres) {
    this.dataSource = dataSource;
    this.postgres = postgres;
    this.mapper = mapper();
  }

  /**
   * Clouddriver's mapper with the {@code kubernetes} type registered, as its Kubernetes provider
   * does.
   */
  public static AccountDefinitionMapper mapper() {
    ObjectMapper json =
        new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .registerModule(
                new AccountDefinitionModule(
                    new NamedType(KubernetesAccountDefinition.class, "kubernetes")));
    return new AccountDefinitionMapper(
        json, new AccountDefinitionSecretManager(null, null), new SecretSession(null));
  }

  public AccountDefinitionMapper definitionMapper() {
    return mapper;
  }

  @Override
  public CredentialsDefinition getByName(String name) {
    List<CredentialsDefinition> found = query("select body from accounts where id = ?", name);
    return found.isEmpty() ? null : found.get(0);
  }

  @Override
  public List<? extends CredentialsDefinition> listByType(
      String type, int limit, String startingAccountName) {
    String after = startingAccountName == null ? "" : startingAccountName;
    return query(
        "select body from accounts where type = ? and id >= ? order by id limit " + limit,
        type,
        after);
  }

  @Override
  public List<? extends CredentialsDefinition> listByType(String type) {
    return query("select body from accounts where type = ? order by id", type);
  }

  @Override
  public void create(CredentialsDefinition definition) {
    write(
        definition,
        "insert into accounts (id, type, body, created_at, last_modified_at, last_modified_by)"
            + " values (?, ?, "
            + jsonParameter()
            + ", ?, ?, 'spinagent')");
  }

  @Override
  public void save(CredentialsDefinition definition) {
    String upsert =
        postgres
            ? " on conflict (id) do update set body = excluded.body, type = excluded.type,"
                + " last_modified_at = excluded.last_modified_at"
            : " on duplicate key update body = values(body), type = values(type),"
                + " last_modified_at = values(last_modified_at)";
    write(
        definition,
        "insert into accounts (id, type, body, created_at, last_modified_at, last_modified_by)"
            + " values (?, ?, "
            + jsonParameter()
            + ", ?, ?, 'spinagent')"
            + upsert);
  }

  @Override
  public void update(CredentialsDefinition definition) {
    if (getByName(definition.getName()) == null) {
      throw new IllegalArgumentException(
          "no account definition named '" + definition.getName() + "'");
    }
    save(definition);
  }

  @Override
  public void delete(String name) {
    try (Connection connection = dataSource.getConnection()) {
      try (PreparedStatement delete =
          connection.prepareStatement("delete from accounts where id = ?")) {
        delete.setString(1, name);
        if (delete.executeUpdate() == 0) {
          return;
        }
      }
      appendHistory(connection, name, null, null, true);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot delete account definition '" + name + "': " + e.getMessage(), e);
    }
  }

  @Override
  public List<Revision> revisionHistory(String name) {
    List<Revision> revisions = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "select version, last_modified_at, body from accounts_history where id = ? order by"
                    + " version desc")) {
      select.setString(1, name);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          String body = rows.getString(3);
          revisions.add(
              new Revision(
                  rows.getInt(1), rows.getLong(2), body == null ? null : mapper.deserialize(body)));
        }
      }
    } catch (SQLException | JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot read the history of account '" + name + "': " + e.getMessage(), e);
    }
    return revisions;
  }

  private void write(CredentialsDefinition definition, String sql) {
    String type = AccountDefinitionTypes.getCredentialsTypeName(definition.getClass());
    long now = System.currentTimeMillis();
    try (Connection connection = dataSource.getConnection()) {
      String body = mapper.serialize(definition);
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        statement.setString(1, definition.getName());
        statement.setString(2, type);
        statement.setString(3, body);
        statement.setLong(4, now);
        statement.setLong(5, now);
        statement.executeUpdate();
      }
      appendHistory(connection, definition.getName(), type, body, false);
    } catch (SQLException | JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot store account definition '" + definition.getName() + "': " + e.getMessage(), e);
    }
  }

  private void appendHistory(
      Connection connection, String name, String type, String body, boolean deleted)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "insert into accounts_history (id, type, body, last_modified_at, version, is_deleted)"
                + " select ?, ?, "
                + jsonParameter()
                + ", ?, coalesce(max(version), 0) + 1, ? from accounts_history"
                + " where id = ?")) {
      insert.setString(1, name);
      insert.setString(2, type);
      insert.setString(3, body);
      insert.setLong(4, System.currentTimeMillis());
      insert.setBoolean(5, deleted);
      insert.setString(6, name);
      insert.executeUpdate();
    }
  }

  private List<CredentialsDefinition> query(String sql, String... parameters) {
    List<CredentialsDefinition> definitions = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        select.setString(i + 1, parameters[i]);
      }
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          definitions.add(mapper.deserialize(rows.getString(1)));
        }
      }
    } catch (SQLException | JsonProcessingException e) {
      throw new IllegalStateException("cannot read account definitions: " + e.getMessage(), e);
    }
    return definitions;
  }

  private String jsonParameter() {
    return postgres ? "cast(? as jsonb)" : "?";
  }
}
