package io.spinagent.standin;

import com.netflix.spinnaker.kork.version.VersionResolver;
import org.springframework.core.Ordered;

/**
 * Reports a configured Clouddriver version. A real Clouddriver reads its version from its jar
 * manifest; the host has none, and without a version the plugin framework skips the check that the
 * plugin's {@code Plugin-Requires} exists for.
 */
final class FixedVersionResolver implements VersionResolver {

  private final String version;

  FixedVersionResolver(String version) {
    this.version = version;
  }

  @Override
  public String resolve(String serviceName) {
    return version;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
