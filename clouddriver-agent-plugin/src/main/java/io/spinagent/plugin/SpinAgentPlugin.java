package io.spinagent.plugin;

import com.netflix.spinnaker.kork.plugins.api.spring.SpringLoaderPlugin;
import io.spinagent.plugin.config.SpinAgentPluginConfig;
import io.spinagent.plugin.tunnel.TunnelKubeconfigs;
import io.spinagent.plugin.web.CredentialsInterceptor;
import java.util.List;
import java.util.function.Function;
import javax.servlet.Filter;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.pf4j.PluginWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/**
 * Entry point Clouddriver's plugin framework instantiates. It hands the plugin's own Spring context
 * the configuration from {@code spinnaker.extensibility.plugins.SpinAgent.Kubernetes.config} and
 * ties that context's life to the plugin's and to Clouddriver's.
 */
public class SpinAgentPlugin extends SpringLoaderPlugin {

  public static final String PLUGIN_ID = "SpinAgent.Kubernetes";

  private static final Logger log = LoggerFactory.getLogger(SpinAgentPlugin.class);

  private final SpinAgentPluginConfig pluginConfig;

  public SpinAgentPlugin(PluginWrapper wrapper, SpinAgentPluginConfig pluginConfig) {
    super(wrapper);
    this.pluginConfig = pluginConfig;
  }

  @Override
  public void registerBeanDefinitions(BeanDefinitionRegistry registry) {
    pluginContext.getEnvironment().getPropertySources().addFirst(pluginConfig.asPropertySource());
    pluginContext
        .getBeanFactory()
        .registerSingleton("spinAgentPluginDescriptor", getWrapper().getDescriptor());
    super.registerBeanDefinitions(registry);

    // Clouddriver does not stop plugins when it shuts down, and a child context is not closed with
    // its parent: without this the gRPC port would outlive the application context.
    registry.registerBeanDefinition(
        PLUGIN_ID + ".contextCloser",
        BeanDefinitionBuilder.genericBeanDefinition(
                PluginContextCloser.class, () -> new PluginContextCloser(pluginContext))
            .getBeanDefinition());

    // What a host embedding the plugin needs to hand out tunnel kubeconfigs; typed with JDK
    // interfaces only, because the host cannot see the plugin's classes.
    registry.registerBeanDefinition(
        TunnelKubeconfigs.HOST_BEAN_NAME,
        BeanDefinitionBuilder.genericBeanDefinition(
                Function.class,
                () ->
                    (Function<String, String>)
                        account ->
                            pluginContext.getBean(TunnelKubeconfigs.class).kubeconfig(account))
            .getBeanDefinition());

    registry.registerBeanDefinition(
        PLUGIN_ID + ".credentialsFilter",
        BeanDefinitionBuilder.genericBeanDefinition(
                FilterRegistrationBean.class, this::credentialsFilter)
            .getBeanDefinition());
  }

  /**
   * In front of Clouddriver's {@code /credentials}: a servlet filter only Clouddriver's own context
   * can register. It hands each request to the plugin's {@link CredentialsInterceptor} once the
   * plugin's context runs, and passes it through untouched before and after.
   */
  private FilterRegistrationBean<Filter> credentialsFilter() {
    Filter filter =
        (request, response, chain) -> {
          CredentialsInterceptor interceptor =
              pluginContext.isActive()
                  ? pluginContext.getBeanProvider(CredentialsInterceptor.class).getIfAvailable()
                  : null;
          if (interceptor != null
              && request instanceof HttpServletRequest http
              && response instanceof HttpServletResponse httpResponse) {
            interceptor.filter(http, httpResponse, chain);
          } else {
            chain.doFilter(request, response);
          }
        };
    FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
    registration.setName(PLUGIN_ID + ".credentialsInterceptor");
    registration.addUrlPatterns("/credentials", "/credentials/*");
    return registration;
  }

  @Override
  public List<String> getPackagesToScan() {
    return List.of(getClass().getPackageName());
  }

  @Override
  public void start() {
    log.info("Starting plugin {} {}", PLUGIN_ID, getWrapper().getDescriptor().getVersion());
  }

  @Override
  public void stop() {
    log.info("Stopping plugin {}", PLUGIN_ID);
    pluginContext.close();
  }
}
