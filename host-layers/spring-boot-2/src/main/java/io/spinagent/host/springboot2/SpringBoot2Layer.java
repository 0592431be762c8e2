package io.spinagent.host.springboot2;

import io.spinagent.host.CredentialsHandler;
import io.spinagent.host.HostLayer;
import io.spinagent.host.HostLibraries;
import io.spinagent.host.LineRequirements;
import io.spinagent.host.Version;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;

/**
 * The host layer for Spinnaker 1.36 to 2025.3: Spring Boot 2.7 with the javax servlet API, jOOQ
 * 3.14. Free of line-specific types itself (see {@link HostLayer}); {@link CredentialsFilter} holds
 * them.
 */
public final class SpringBoot2Layer implements HostLayer {

  static final LineRequirements REQUIREMENTS =
      new LineRequirements(
          HostLibraries.Servlet.JAVAX,
          Version.of("2.7"),
          Version.of("3.0"),
          Version.of("3.14"),
          Version.of("3.15"));

  @Override
  public String name() {
    return "spring-boot-2";
  }

  @Override
  public String serves() {
    return "Spinnaker 1.36 to 2025.3: Spring Boot 2.7, javax servlet, jOOQ 3.14";
  }

  @Override
  public Optional<String> mismatch(HostLibraries host) {
    return REQUIREMENTS.mismatch(host);
  }

  @Override
  public void registerInClouddriver(
      BeanDefinitionRegistry clouddriver, Supplier<CredentialsHandler> credentials) {
    CredentialsFilter.register(clouddriver, credentials);
  }
}
