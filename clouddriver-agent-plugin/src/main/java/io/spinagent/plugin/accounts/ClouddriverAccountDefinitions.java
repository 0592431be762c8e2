package io.spinagent.plugin.accounts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinitionSource;
import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.Kind;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads and writes Kubernetes account definitions in Clouddriver's account storage: the {@code
 * AccountDefinitionRepository} that backs {@code /credentials}, through Clouddriver's own {@code
 * AccountDefinitionMapper}, so the definitions are exactly what {@code POST /credentials} would
 * store and Clouddriver's credentials poller loads.
 *
 * <p>Clouddriver's Kubernetes credential sources ({@code kubernetesAccountSource}, Clouddriver's
 * {@code AccountDefinitionSource}) list account storage first and then the accounts of its
 * configuration files, skipping a later definition whose name an earlier one has: an account of the
 * files can be read here to be migrated, and the tunnel definition stored for it afterwards is the
 * one Clouddriver loads.
 */
public final class ClouddriverAccountDefinitions {

  static final String TYPE = "kubernetes";

  private final AccountDefinitionRepository repository;
  private final AccountDefinitionMapper mapper;
  private final Optional<CredentialsDefinitionSource<?>> kubernetesSources;

  private final ObjectMapper json = new ObjectMapper();

  /**
   * @param kubernetesSources all of Clouddriver's Kubernetes account definitions (account storage
   *     and configuration files), when Clouddriver has them as a bean
   */
  public ClouddriverAccountDefinitions(
      AccountDefinitionRepository repository,
      AccountDefinitionMapper mapper,
      Optional<CredentialsDefinitionSource<?>> kubernetesSources) {
    this.repository = repository;
    this.mapper = mapper;
    this.kubernetesSources = kubernetesSources;
  }

  /**
   * The definition Clouddriver gets for an agent account: never polled ({@code cacheThreads: 0}),
   * reached through the plugin's tunnel with {@code kubeconfigContents}, permissions, namespaces
   * and kinds as the agent reported them, and {@code metrics} and {@code customResources} as the
   * account's dynamic definition says or, for an account of the agent's own configuration, as the
   * agent reported them. {@code metrics} that nobody set is left out, so Clouddriver applies its
   * default.
   *
   * @param dynamic the account's definition when it was created through the API or migrated; null
   *     for an account of an agent's configuration
   */
  public Map<String, Object> tunnelDefinition(
      AgentAccount account, DynamicAccountSpec dynamic, String kubeconfig) {
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
    Boolean metrics;
    List<CustomResource> customResources;
    if (dynamic != null) {
      metrics = dynamic.metrics();
      customResources = dynamic.customResources();
    } else if (reported != null) {
      metrics = reported.hasMetrics() ? reported.getMetrics() : null;
      customResources = reported.getCustomResourcesList().stream().map(CustomResource::of).toList();
    } else {
      metrics = null;
      customResources = List.of();
    }
    if (metrics != null) {
      definition.put("metrics", metrics);
    }
    if (!customResources.isEmpty()) {
      definition.put(
          "customResources",
          customResources.stream().map(CustomResource::definitionFields).toList());
    }
    return definition;
  }

  /** The names of the Kubernetes accounts in Clouddriver's account storage. */
  public List<String> kubernetesAccountNames() {
    return repository.listByType(TYPE).stream().map(CredentialsDefinition::getName).toList();
  }

  /**
   * The names of the Kubernetes accounts Clouddriver has from its other credential sources (its
   * configuration files), not from account storage; none when Clouddriver offers no such source.
   */
  public List<String> configuredKubernetesAccountNames() {
    Set<String> stored = Set.copyOf(kubernetesAccountNames());
    return configured().stream()
        .map(CredentialsDefinition::getName)
        .filter(name -> !stored.contains(name))
        .toList();
  }

  /** The stored definition of that name as JSON fields, if Clouddriver has one. */
  public Optional<Map<String, Object>> find(String name) {
    return Optional.ofNullable(repository.getByName(name)).map(this::fields);
  }

  /**
   * The definition of that name as JSON fields, from account storage or, failing that, from
   * Clouddriver's configuration files.
   */
  Optional<Map<String, Object>> findInAnySource(String name) {
    Optional<Map<String, Object>> stored = find(name);
    if (stored.isPresent()) {
      return stored;
    }
    return configured().stream()
        .filter(definition -> name.equals(definition.getName()))
        .findFirst()
        .map(this::fields);
  }

  private List<? extends CredentialsDefinition> configured() {
    return kubernetesSources
        .<List<? extends CredentialsDefinition>>map(
            CredentialsDefinitionSource::getCredentialsDefinitions)
        .orElse(List.of());
  }

  private Map<String, Object> fields(CredentialsDefinition definition) {
    String name = definition.getName();
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> fields = json.readValue(mapper.serialize(definition), Map.class);
      return fields;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot read Clouddriver's account definition '" + name + "'", e);
    }
  }

  /**
   * The dynamic account that puts Clouddriver's Kubernetes account {@code name} under the agent (or
   * zone of agents) named: its kubeconfig, read from the file on Clouddriver's machine when the
   * definition names one, goes to the agent, with the definition's namespaces, kinds and
   * permissions; its {@code metrics} and {@code customResources} stay the account's, in the tunnel
   * definition that replaces it.
   */
  DynamicAccountSpec migrationSpec(String name, String agentId, String zoneId) {
    Map<String, Object> definition =
        findInAnySource(name)
            .orElseThrow(
                () ->
                    AccountRequestException.notFound(
                        "Clouddriver has no account definition named '" + name + "'"));
    if (!TYPE.equals(definition.get("type"))) {
      throw AccountRequestException.invalid(
          "account '" + name + "' is of type '" + definition.get("type") + "', not kubernetes");
    }
    String contents = string(definition.get("kubeconfigContents"));
    String file = string(definition.get("kubeconfigFile"));
    if (contents == null && file != null) {
      // The path is on Clouddriver's machine; the agent needs the kubeconfig itself.
      try {
        contents = KubeconfigFile.read(file);
      } catch (IOException e) {
        throw AccountRequestException.invalid(
            "account '"
                + name
                + "': cannot read its kubeconfigFile "
                + file
                + ": "
                + e.getMessage());
      }
    }
    boolean serviceAccount = Boolean.TRUE.equals(definition.get("serviceAccount"));
    return new DynamicAccountSpec(
        name,
        agentId,
        zoneId,
        contents,
        null,
        (contents == null && serviceAccount) ? true : null,
        string(definition.get("context")),
        strings(definition.get("namespaces")),
        strings(definition.get("omitNamespaces")),
        strings(definition.get("kinds")),
        strings(definition.get("omitKinds")),
        permissions(definition.get("permissions")),
        Boolean.TRUE.equals(definition.get("onlySpinnakerManaged")) ? true : null,
        definition.get("metrics") instanceof Boolean metrics ? metrics : null,
        customResources(definition.get("customResources")));
  }

  /** Clouddriver's stored Kubernetes definitions as JSON fields, by name, read at once. */
  public Map<String, Map<String, Object>> storedKubernetesDefinitions() {
    Map<String, Map<String, Object>> byName = new HashMap<>();
    for (CredentialsDefinition definition : repository.listByType(TYPE)) {
      byName.put(definition.getName(), fields(definition));
    }
    return byName;
  }

  /**
   * How {@code stored} (a definition as {@link #storedKubernetesDefinitions} reads it, null for
   * none) differs from what saving {@code expected} stores: {@code "it was deleted"}, {@code "it
   * was changed (<fields>)"}, or empty when they agree. Both sides go through Clouddriver's mapper,
   * so fields it fills with defaults compare equal.
   */
  public Optional<String> drift(Map<String, Object> expected, Map<String, Object> stored) {
    if (stored == null) {
      return Optional.of("it was deleted");
    }
    Map<String, Object> wanted = fields(toDefinition(expected));
    Set<String> fields = new TreeSet<>(wanted.keySet());
    fields.addAll(stored.keySet());
    List<String> changed =
        fields.stream()
            .filter(field -> !Objects.equals(wanted.get(field), stored.get(field)))
            .toList();
    return changed.isEmpty()
        ? Optional.empty()
        : Optional.of("it was changed (" + String.join(", ", changed) + ")");
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

  private static AccountPermissions permissions(Object value) {
    if (!(value instanceof Map<?, ?> map)) {
      return AccountPermissions.NONE;
    }
    return new AccountPermissions(strings(map.get("READ")), strings(map.get("WRITE")));
  }

  private static List<CustomResource> customResources(Object value) {
    return value instanceof List<?> list
        ? list.stream().map(CustomResource::ofDefinition).toList()
        : List.of();
  }

  private static String string(Object value) {
    return value instanceof String text && !text.isBlank() ? text : null;
  }

  private static List<String> strings(Object value) {
    return value instanceof List<?> list ? list.stream().map(String::valueOf).toList() : List.of();
  }
}
