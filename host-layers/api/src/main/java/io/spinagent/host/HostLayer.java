package io.spinagent.host;

import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;

/**
 * The plugin's part that differs between Spinnaker lines: the code compiled against one family of
 * lines' libraries (their servlet API, their Spring Boot). The bundle carries one per family and
 * the plugin chooses one when Clouddriver loads it ({@link HostLayers}).
 *
 * <p>Implementations are found with {@link java.util.ServiceLoader} on every line, so the
 * implementing class itself must load and link on any host: it touches its line's classes only in
 * other classes, which {@link #registerInClouddriver} reaches once this layer is chosen.
 */
public interface HostLayer {

  /** A short name for logs and docs, e.g. {@code spring-boot-3}. */
  String name();

  /** The Spinnaker lines this layer serves, e.g. "Spinnaker 2025.4 to 2026.4 (Spring Boot 3)". */
  String serves();

  /** Why this layer cannot serve {@code host}, or empty when it can. */
  Optional<String> mismatch(HostLibraries host);

  /**
   * Registers in Clouddriver's own context what only that context can hold: the servlet filter in
   * front of Clouddriver's {@code /credentials}, which hands each request to {@code credentials}
   * (null until the plugin's context runs, and after it stopped: then requests pass untouched).
   */
  void registerInClouddriver(
      BeanDefinitionRegistry clouddriver, Supplier<CredentialsHandler> credentials);
}
