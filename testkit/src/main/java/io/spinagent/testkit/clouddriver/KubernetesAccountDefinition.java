package io.spinagent.testkit.clouddriver;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition;
import java.util.List;
import java.util.Map;

/**
 * Stands in for clouddriver-kubernetes' {@code KubernetesConfigurationProperties.ManagedAccount},
 * which is not on Maven Central: the fields of a {@code kubernetes} account definition (see
 * reference/clouddriver.md §5). Unknown fields fail to read, so a misspelled field the plugin
 * writes is caught by tests rather than dropped.
 */
@JsonTypeName("kubernetes")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KubernetesAccountDefinition implements CredentialsDefinition {

  public String name;
  public String environment;
  public String accountType;
  public String context;
  public String kubeconfigFile;
  public String kubeconfigContents;
  public String kubectlExecutable;
  public Integer kubectlRequestTimeoutSeconds;
  public Boolean serviceAccount;
  public List<String> namespaces;
  public List<String> omitNamespaces;
  public Integer cacheThreads;
  public List<String> requiredGroupMembership;
  public Map<String, List<String>> permissions;
  public String namingStrategy;
  public Boolean metrics;
  public Boolean checkPermissionsOnStartup;
  public List<CustomKubernetesResource> customResources;
  public List<Map<String, Object>> cachingPolicies;
  public List<String> kinds;
  public List<String> omitKinds;
  public Boolean onlySpinnakerManaged;
  public Long cacheIntervalSeconds;
  public Boolean cacheAllApplicationRelationships;
  public Map<String, Object> rawResourcesEndpointConfig;

  @Override
  public String getName() {
    return name;
  }
}
