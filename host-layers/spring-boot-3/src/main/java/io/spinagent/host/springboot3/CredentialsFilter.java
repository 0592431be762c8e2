package io.spinagent.host.springboot3;

import io.spinagent.host.CredentialsHandler;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/**
 * In front of Clouddriver's {@code /credentials}: a servlet filter, which only Clouddriver's own
 * context can register, that hands each request to the plugin's {@link CredentialsHandler} while
 * the plugin's context runs, and passes it through untouched before and after.
 */
final class CredentialsFilter implements Filter {

  static final String BEAN_NAME = "SpinAgent.Kubernetes.credentialsFilter";

  private final Supplier<CredentialsHandler> handler;

  private CredentialsFilter(Supplier<CredentialsHandler> handler) {
    this.handler = handler;
  }

  static void register(BeanDefinitionRegistry clouddriver, Supplier<CredentialsHandler> handler) {
    clouddriver.registerBeanDefinition(
        BEAN_NAME,
        BeanDefinitionBuilder.genericBeanDefinition(
                FilterRegistrationBean.class, () -> registration(handler))
            .getBeanDefinition());
  }

  private static FilterRegistrationBean<Filter> registration(Supplier<CredentialsHandler> handler) {
    FilterRegistrationBean<Filter> registration =
        new FilterRegistrationBean<>(new CredentialsFilter(handler));
    registration.setName(BEAN_NAME);
    registration.addUrlPatterns("/credentials", "/credentials/*");
    return registration;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    CredentialsHandler current = handler.get();
    if (current == null
        || !(request instanceof HttpServletRequest http)
        || !(response instanceof HttpServletResponse httpResponse)) {
      chain.doFilter(request, response);
      return;
    }
    try {
      current.handle(new ServletCredentialsExchange(http, httpResponse, chain));
    } catch (ServletCredentialsExchange.ClouddriverFailure e) {
      throw e.getCause();
    }
  }
}
