package io.spinagent.standin;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.filter.UrlHandlerFilter;

/**
 * Spinnaker 2026.2's trailing-slash handling (kork-web's {@code UrlHandlerFilterAutoConfiguration},
 * not on Maven Central): Spring 6's {@link UrlHandlerFilter} trims a trailing slash from every path
 * before anything else sees the request, unless {@code url-handler.trailing-slash.enabled} is
 * false. The plugin serves both forms either way.
 */
@AutoConfiguration
@ConditionalOnProperty(value = "url-handler.trailing-slash.enabled", matchIfMissing = true)
public class TrailingSlashConfiguration {

  @Bean
  FilterRegistrationBean<UrlHandlerFilter> trailingSlashUrlHandlerFilter() {
    FilterRegistrationBean<UrlHandlerFilter> registration =
        new FilterRegistrationBean<>(
            UrlHandlerFilter.trailingSlashHandler("/**").wrapRequest().build());
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }
}
