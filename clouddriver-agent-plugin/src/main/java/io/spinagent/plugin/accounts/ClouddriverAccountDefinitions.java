package io.spinagent.plugin.accounts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads and writes Kubernetes account definitions in Clouddriver's account storage: the {@code
 * AccountDefinitionRepository} that backs {@code /credentials}, through Clouddriver's own {@code
 * AccountDefinitionMapper}, so the definitions are exactly what {@code POST /credentials} would
 * store and Clouddriver's credentials poller loads.
 */
public final class ClouddriverAccountDefinitions {

  static final String TYPE = "kubernetes";

  private final AccountDefinitionRepository repository;
  private final AccountDefinitionMapper mapper;
  private final ObjectMapper json = new ObjectMapper();

  public ClouddriverAccountDefinitions(
      AccountDefinitionRepository repository, AccountDefinitionMapper mapper) {
    this.repository = repository;
    this.mapper = mapper;
  }

  /**
   * The definition Clouddriver gets for an agent account: never polled ({@code cacheThreads: 0}),
   * reached through the plugin's tunnel with {@code kubeconfigContents}, permissions, namespaces
   * and kinds as the agent reported them.
   */
  public Map<String, Object> tunnelDefinition(AgentAccount account, String kubeconfig) {
    Map<String, Object> definition = new LinkedHashMap<>();
    definition.put("type", TYPE);
    definition.put("name", account.name());
    definition.put("kubeconfigContents", kubeconfig);
    definition.put("cacheThreads", 0);
    definition.put("checkPermissionsOnStartup", false);
    definition.put("onlySpinnakerManaged", false);
    AccountInfo reported = account.reported();
    if (reported != null) {
      definition.put("namespaces", List.copyOf(reported.getNamespacesList()));
      definition.put("omitNamespaces", List.copyOf(reported.getOmitNamespacesList()));
      definition.put(
          "kinds",
          reported.getKindsList().stream().map(ClouddriverAccountDefinitions::kindName).toList());
      definition.put("onlySpinnakerManaged", reported.getOnlySpinnakerManaged());
      Map<String, List<String>> permissions = new LinkedHashMap<>();
      if (reported.getPermissions().getReadCount() > 0) {
        permissions.put("READ", List.copyOf(reported.getPermissions().getReadList()));
      }
      if (reported.getPermissions().getWriteCount() > 0) {
        permissions.put("WRITE", List.copyOf(reported.getPermissions().getWriteList()));
      }
      if (!permissions.isEmpty()) {
        definition.put("permissions", permissions);
      }
    }
    return definition;
  }

  /** The stored definition of that name as JSON fields, if Clouddriver has one. */
  public Optional<Map<String, Object>> find(String name) {
    CredentialsDefinition definition = repository.getByName(name);
    if (definition == null) {
      return Optional.empty();
    }
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> fields = json.readValue(mapper.serialize(definition), Map.class);
      return Optional.of(fields);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot read Clouddriver's account definition '" + name + "'", e);
    }
  }

  /** Creates or replaces the definition. */
  public void save(Map<String, Object> fields) {
    repository.save(toDefinition(fields));
  }

  public void delete(String name) {
    repository.delete(name);
  }

  private CredentialsDefinition toDefinition(Map<String, Object> fields) {
    try {
      return mapper.deserialize(json.writeValueAsString(fields));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "Clouddriver cannot read a '"
              + TYPE
              + "' account definition ("
              + e.getOriginalMessage()
              + "): is its Kubernetes provider enabled (kubernetes.enabled: true)?",
          e);
    }
  }

  /**
   * Clouddriver's spelling of a kind: {@code Deployment.apps}, or {@code Service} in the core
   * group.
   */
  static String kindName(Kind kind) {
    return kind.getGroup().isEmpty() ? kind.getKind() : kind.getKind() + "." + kind.getGroup();
  }
}
