package io.spinagent.standin;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionSource;
import com.netflix.spinnaker.credentials.definition.CredentialsDefinitionSource;
import io.spinagent.testkit.clouddriver.KubernetesAccountDefinition;
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Clouddriver's account storage and its Kubernetes account source, as clouddriver-sql and
 * clouddriver-kubernetes set them up (neither is on Maven Central): with account storage on (and
 * Clouddriver's SQL database), definitions live in the {@code accounts} table; the Kubernetes
 * accounts Clouddriver loads are the stored ones first and then those of its configuration ({@code
 * kubernetes.accounts}), a name once only, through Clouddriver's own {@link
 * AccountDefinitionSource}.
 *
 * <p>Whether account storage is on follows the line: {@code account.storage.enabled} and {@code
 * account.storage.kubernetes.enabled}, both off unless set up to Spinnaker 2026.2, both on unless
 * set from 2026.3 ({@value #STORAGE_DEFAULT}, set by each line's module).
 */
@Configuration
public class AccountStorageConfiguration {

  /** Whether account storage is on when nothing says: false up to 2026.2, true from 2026.3. */
  static final String STORAGE_DEFAULT = "standin.account-storage-on-by-default";

  @Bean
  @ConditionalOnBean(StandInDatabase.class)
  @Conditional(AccountStorageOn.class)
  SqlAccountDefinitionRepository accountDefinitionRepository(StandInDatabase database) {
    return new SqlAccountDefinitionRepository(database.dataSource(), database.isPostgres());
  }

  @Bean
  @ConditionalOnBean(SqlAccountDefinitionRepository.class)
  AccountDefinitionMapper accountDefinitionMapper(SqlAccountDefinitionRepository repository) {
    return repository.definitionMapper();
  }

  /** The Kubernetes accounts Clouddriver loads: stored ones, then configured ones. */
  @Bean
  CredentialsDefinitionSource<KubernetesAccountDefinition> kubernetesAccountSource(
      ObjectProvider<AccountDefinitionRepository> repository, Environment environment) {
    List<KubernetesAccountDefinition> configured = configuredAccounts(environment);
    AccountDefinitionRepository storage = repository.getIfAvailable();
    return storage == null
        ? () -> configured
        : new AccountDefinitionSource<>(
            storage, KubernetesAccountDefinition.class, List.of(() -> configured));
  }

  /** Account storage is on: both properties, each on by the line's default when unset. */
  static final class AccountStorageOn implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      Environment environment = context.getEnvironment();
      boolean byDefault = environment.getProperty(STORAGE_DEFAULT, Boolean.class, false);
      return environment.getProperty("account.storage.enabled", Boolean.class, byDefault)
          && environment.getProperty(
              "account.storage.kubernetes.enabled", Boolean.class, byDefault);
    }
  }

  /** {@code kubernetes.accounts} of Clouddriver's configuration. */
  static List<KubernetesAccountDefinition> configuredAccounts(Environment environment) {
    ObjectMapper json =
        new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    return Binder.get(environment)
        .bind("kubernetes.accounts", Bindable.listOf(Map.class))
        .orElse(List.of())
        .stream()
        .map(account -> json.convertValue(account, KubernetesAccountDefinition.class))
        .toList();
  }
}
