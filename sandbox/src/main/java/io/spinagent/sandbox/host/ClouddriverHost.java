package io.spinagent.sandbox.host;

import com.netflix.spinnaker.config.PluginsAutoConfiguration;
import com.netflix.spinnaker.kork.version.VersionResolver;
import io.spinagent.sandbox.db.SandboxDatabase;
import io.spinagent.testkit.clouddriver.SqlAccountDefinitionRepository;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.SQLDialect;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.groovy.template.GroovyTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;

/**
 * A stand-in for Clouddriver 5.90.0: Spring Boot 2.7 with kork's real plugin framework, on the
 * libraries Clouddriver ships. It loads plugins from a plugins root exactly as Clouddriver does, so
 * what runs here is the released bundle, not classes from our build.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    exclude = {
      // Clouddriver configures these from Fiat; the sandbox has no users.
      SecurityAutoConfiguration.class,
      SecurityFilterAutoConfiguration.class,
      UserDetailsServiceAutoConfiguration.class,
      ManagementWebSecurityAutoConfiguration.class,
      // Clouddriver builds its data sources with kork-sql, and runs its own Liquibase changelog;
      // the sandbox hands its DataSource and DSLContext in (see start) and creates the tables
      // itself.
      DataSourceAutoConfiguration.class,
      LiquibaseAutoConfiguration.class,
      // Clouddriver serves no templates; clouddriver-core merely has groovy-templates on its path.
      GroovyTemplateAutoConfiguration.class
    },
    excludeName = "com.netflix.spinnaker.kork.retrofit.RetrofitServiceFactoryAutoConfiguration")
@Import(PluginsAutoConfiguration.class)
public class ClouddriverHost {

  /** The Clouddriver version the host reports to the plugin framework's version check. */
  public static final String VERSION_PROPERTY = "spinagent.sandbox.clouddriver-version";

  public static final String DEFAULT_VERSION = "5.90.0";

  @Bean
  static VersionResolver clouddriverVersionResolver(Environment environment) {
    return new FixedVersionResolver(environment.getProperty(VERSION_PROPERTY, DEFAULT_VERSION));
  }

  @SuppressWarnings("unchecked")
  private static <T> void register(GenericApplicationContext context, String name, T bean) {
    // A definition, not a bare singleton: Clouddriver's beans may look theirs up by definition.
    context.registerBean(name, (Class<T>) bean.getClass(), () -> bean);
  }

  /**
   * Starts a host that loads plugins from {@code pluginsRoot}. {@code properties} are Clouddriver
   * configuration (e.g. {@code spinnaker.extensibility.plugins.<id>.enabled}); they win over the
   * host's defaults.
   */
  public static ConfigurableApplicationContext start(
      Path pluginsRoot, Map<String, Object> properties) {
    return start(pluginsRoot, properties, Map.of());
  }

  /**
   * As {@link #start(Path, Map)}, configured as a Clouddriver whose cache and account storage are
   * SQL on {@code database}: kork-sql's {@code DataSource} and jOOQ {@code DSLContext}, and the
   * account definition repository with its mapper, so that agent accounts become Clouddriver
   * accounts.
   */
  public static ConfigurableApplicationContext startOnSql(
      Path pluginsRoot, Map<String, Object> properties, SandboxDatabase database) {
    Map<String, Object> all = new LinkedHashMap<>(properties);
    all.put("sql.cache.enabled", true);
    SqlAccountDefinitionRepository accountStorage =
        new SqlAccountDefinitionRepository(
            database.dataSource(), database.dialect() == SQLDialect.POSTGRES);
    return start(
        pluginsRoot,
        all,
        Map.of(
            "dataSource",
            database.dataSource(),
            "jooq",
            database.jooq(),
            "accountDefinitionRepository",
            accountStorage,
            "accountDefinitionMapper",
            accountStorage.definitionMapper()));
  }

  /**
   * As {@link #start(Path, Map)}, with beans Clouddriver's own configuration would have made (e.g.
   * kork-sql's {@code DataSource} and jOOQ {@code DSLContext}), registered under their names before
   * anything else is created.
   */
  public static ConfigurableApplicationContext start(
      Path pluginsRoot, Map<String, Object> properties, Map<String, Object> beans) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("spring.application.name", "clouddriver");
    all.put("spinnaker.extensibility.plugins-root-path", pluginsRoot.toAbsolutePath().toString());
    // No network here: never reach for the public Spinnaker plugin repositories.
    all.put("spinnaker.extensibility.enable-default-repositories", false);
    all.put("spinnaker.extensibility.remote-plugins.cache.enabled", false);
    all.put("server.port", 7002);
    all.putAll(properties);
    ApplicationContextInitializer<GenericApplicationContext> registerBeans =
        context -> beans.forEach((name, bean) -> register(context, name, bean));
    return new SpringApplicationBuilder(ClouddriverHost.class)
        .properties(all)
        .initializers(registerBeans)
        .run();
  }
}
