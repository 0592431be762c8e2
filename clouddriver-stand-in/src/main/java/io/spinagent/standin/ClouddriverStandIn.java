package io.spinagent.standin;

import com.netflix.spinnaker.config.PluginsAutoConfiguration;
import com.netflix.spinnaker.kork.version.VersionResolver;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;
import org.springframework.core.env.Environment;

/**
 * A stand-in for Clouddriver, on one Spinnaker line's libraries: Spring Boot with kork's real
 * plugin framework, which loads plugins from a plugins root exactly as Clouddriver does, so what
 * runs here is the released bundle. Like Clouddriver's {@code Main} it is no {@code
 * SpringBootApplication}, so the plugin framework resolves no version unless {@value
 * #VERSION_PROPERTY} names one.
 *
 * <p>Stood in for: Clouddriver's SQL database wiring (kork-sql's pool and jOOQ context, see {@link
 * StandInDatabase}), its account storage and Kubernetes account source ({@link
 * AccountStorageConfiguration}) and its {@code /credentials} API ({@link CredentialsController}).
 * Fiat, Clouddriver's own providers and its other controllers are absent.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    excludeName = {
      // Clouddriver configures these from Fiat; the stand-in has no users.
      "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
      "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration",
      "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.security.servlet"
          + ".ManagementWebSecurityAutoConfiguration",
      // Clouddriver builds its data source with kork-sql and runs its own Liquibase changelog; the
      // stand-in hands in its DataSource and DSLContext and creates the tables itself.
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.jooq.JooqAutoConfiguration",
      "org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration",
      // Clouddriver serves no templates; its libraries merely have groovy-templates on the path.
      "org.springframework.boot.autoconfigure.groovy.template.GroovyTemplateAutoConfiguration",
      "com.netflix.spinnaker.kork.retrofit.RetrofitServiceFactoryAutoConfiguration"
    })
@PropertySource("classpath:standin-line.properties")
@Import({
  PluginsAutoConfiguration.class,
  AccountStorageConfiguration.class,
  CredentialsController.class,
  StandInController.class
})
public class ClouddriverStandIn {

  /**
   * The Clouddriver version the stand-in reports to the plugin framework's {@code requires} check;
   * unset, none resolves, as with Clouddriver's own {@code Main}.
   */
  public static final String VERSION_PROPERTY = "standin.clouddriver-version";

  /** Which timers and summaries publish histogram buckets, for {@code /standin/meters}. */
  @Bean
  static HistogramPublication histogramPublication() {
    return new HistogramPublication();
  }

  @Bean
  @ConditionalOnProperty(VERSION_PROPERTY)
  static VersionResolver clouddriverVersionResolver(Environment environment) {
    return new FixedVersionResolver(environment.getRequiredProperty(VERSION_PROPERTY));
  }
}
