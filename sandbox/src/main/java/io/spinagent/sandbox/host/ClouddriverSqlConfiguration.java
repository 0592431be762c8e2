package io.spinagent.sandbox.host;

import com.netflix.spinnaker.clouddriver.security.AccountDefinitionMapper;
import com.netflix.spinnaker.clouddriver.security.AccountDefinitionRepository;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * What kork-sql and clouddriver-sql give a Clouddriver with {@code sql.enabled}: a pooled DataSource
 * and jOOQ {@link DSLContext} on {@code sql.connectionPools.default.*}, and, with {@code
 * account.storage.enabled}, the account storage that backs {@code /credentials}. The same property
 * names as Clouddriver's, so a sandbox configuration reads like a real one.
 */
@Configuration
@ConditionalOnProperty("sql.enabled")
public class ClouddriverSqlConfiguration {

  @Bean(destroyMethod = "close")
  HikariDataSource clouddriverDataSource(Environment environment) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(environment.getRequiredProperty("sql.connectionPools.default.jdbcUrl"));
    config.setUsername(environment.getProperty("sql.connectionPools.default.user"));
    config.setPassword(environment.getProperty("sql.connectionPools.default.password"));
    config.setMaximumPoolSize(8);
    config.setPoolName("clouddriver-default");
    return new HikariDataSource(config);
  }

  @Bean
  DSLContext clouddriverJooq(DataSource dataSource, Environment environment) {
    String url = environment.getRequiredProperty("sql.connectionPools.default.jdbcUrl");
    return DSL.using(dataSource, url.startsWith("jdbc:postgresql:") ? SQLDialect.POSTGRES : SQLDialect.MYSQL);
  }

  @Bean
  @ConditionalOnProperty("account.storage.enabled")
  SqlAccountDefinitionRepository accountDefinitionRepository(DataSource dataSource, Environment environment) {
    return new SqlAccountDefinitionRepository(
        dataSource, environment.getRequiredProperty("sql.connectionPools.default.jdbcUrl").startsWith("jdbc:postgresql:"));
  }

  @Bean
  @ConditionalOnProperty("account.storage.enabled")
  AccountDefinitionMapper accountDefinitionMapper(AccountDefinitionRepository repository) {
    return ((SqlAccountDefinitionRepository) repository).definitionMapper();
  }
}
