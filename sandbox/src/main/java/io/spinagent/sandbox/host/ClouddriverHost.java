package io.spinagent.sandbox.host;

import com.netflix.spinnaker.config.PluginsAutoConfiguration;
import com.netflix.spinnaker.kork.version.VersionResolver;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.groovy.template.GroovyTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
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
      // Clouddriver builds its data sources with kork-sql; the sandbox adds its own when it needs one.
      DataSourceAutoConfiguration.class,
      // Clouddriver serves no templates; clouddriver-core merely has groovy-templates on its path.
      GroovyTemplateAutoConfiguration.class,
      // kork-sql runs Clouddriver's changelogs itself; Boot's own Liquibase run has none to run.
      LiquibaseAutoConfiguration.class
    },
    excludeName = "com.netflix.spinnaker.kork.retrofit.RetrofitServiceFactoryAutoConfiguration")
@Import({PluginsAutoConfiguration.class, ClouddriverSqlConfiguration.class})
public class ClouddriverHost {

  /** The Clouddriver version the host reports to the plugin framework's version check. */
  public static final String VERSION_PROPERTY = "spinagent.sandbox.clouddriver-version";

  public static final String DEFAULT_VERSION = "5.90.0";

  @Bean
  static VersionResolver clouddriverVersionResolver(Environment environment) {
    return new FixedVersionResolver(environment.getProperty(VERSION_PROPERTY, DEFAULT_VERSION));
  }

  /**
   * Starts a host that loads plugins from {@code pluginsRoot}. {@code properties} are Clouddriver
   * configuration (e.g. {@code spinnaker.extensibility.plugins.<id>.enabled}); they win over the
   * host's defaults.
   */
  public static ConfigurableApplicationContext start(Path pluginsRoot, Map<String, Object> properties) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("spring.application.name", "clouddriver");
    all.put("spinnaker.extensibility.plugins-root-path", pluginsRoot.toAbsolutePath().toString());
    // No network here: never reach for the public Spinnaker plugin repositories.
    all.put("spinnaker.extensibility.enable-default-repositories", false);
    all.put("spinnaker.extensibility.remote-plugins.cache.enabled", false);
    all.put("server.port", 7002);
    all.putAll(properties);
    return new SpringApplicationBuilder(ClouddriverHost.class).properties(all).run();
  }
}
