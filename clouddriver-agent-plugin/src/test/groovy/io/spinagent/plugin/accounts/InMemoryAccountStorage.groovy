package io.spinagent.plugin.accounts

import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository
import com.netflix.spinnaker.credentials.definition.CredentialsDefinition
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository

/**
 * Clouddriver's account storage in memory, for one-class specs: definitions kept as Clouddriver's
 * own {@link AccountDefinitionMapper} writes them (the {@code kubernetes} type registered), so
 * what the plugin reads back is what Clouddriver would store. {@link #definitions} is the plugin's
 * view of it.
 */
class InMemoryAccountStorage implements AccountDefinitionRepository {

  final AccountDefinitionMapper mapper = SqlAccountDefinitionRepository.mapper()
  private final Map<String, String> stored = new TreeMap<>()

  /** When set, deleting a definition throws it. */
  RuntimeException deleteFailure

  final ClouddriverAccountDefinitions definitions = new ClouddriverAccountDefinitions(this, mapper, Optional.empty())

  /** Stores a Kubernetes account as {@code POST /credentials} would. */
  void putKubernetes(Map<String, Object> fields) {
    save(new KubernetesAccountDefinition(fields))
  }

  /** The stored definition as JSON fields, or null. */
  synchronized Map<String, Object> fields(String name) {
    definitions.find(name).orElse(null)
  }

  @Override
  synchronized CredentialsDefinition getByName(String name) {
    stored[name] == null ? null : mapper.deserialize(stored[name])
  }

  @Override
  synchronized List<? extends CredentialsDefinition> listByType(String type, int limit, String startingAccountName) {
    listByType(type).findAll { startingAccountName == null || it.name >= startingAccountName }.take(limit)
  }

  @Override
  synchronized List<? extends CredentialsDefinition> listByType(String type) {
    stored.values().collect { mapper.deserialize(it) }.findAll { it instanceof KubernetesAccountDefinition == (type == 'kubernetes') }
  }

  @Override
  synchronized void create(CredentialsDefinition definition) {
    if (stored.containsKey(definition.name)) {
      throw new IllegalArgumentException("account definition '${definition.name}' exists")
    }
    save(definition)
  }

  @Override
  synchronized void save(CredentialsDefinition definition) {
    stored[definition.name] = mapper.serialize(definition)
  }

  @Override
  synchronized void update(CredentialsDefinition definition) {
    if (!stored.containsKey(definition.name)) {
      throw new IllegalArgumentException("no account definition named '${definition.name}'")
    }
    save(definition)
  }

  @Override
  synchronized void delete(String name) {
    if (deleteFailure != null) {
      throw deleteFailure
    }
    stored.remove(name)
  }

  @Override
  List<Revision> revisionHistory(String name) {
    throw new UnsupportedOperationException('not kept in memory')
  }
}
