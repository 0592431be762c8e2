package io.spinagent.host.springboot3;

import io.spinagent.host.CredentialsHandler;
import io.spinagent.host.HostLayer;
import io.spinagent.host.HostLibraries;
import io.spinagent.host.LineRequirements;
import io.spinagent.host.Version;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;

/**
 * The host layer for Spinnaker 2025.4 and later: Spring Boot 3.0 to 3.5 with the jakarta servlet
 * API, jOOQ 3.17 to 3.19. Free of line-specific types itself (see {@link HostLayer}); {@link
 * CredentialsFilter} holds them.
 */
public final class SpringBoot3Layer implements HostLayer {

  static final LineRequirements REQUIREMENTS =
      new LineRequirements(
          HostLibraries.Servlet.JAKARTA,
          Version.of("3.0"),
          Version.of("3.6"),
          Version.of("3.17"),
          Version.of("3.20"));

  @Override
  public String name() {
    return "spring-boot-3";
  }

  @Override
  public String serves() {
    return "Spinnaker 2025.4 to 2026.4: Spring Boot 3.0 to 3.5, jakarta servlet, jOOQ 3.17 to 3.19";
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
