package io.spinagent.plugin;

import com.netflix.spinnaker.kork.plugins.api.spring.SpringLoaderPlugin;
import io.spinagent.host.CredentialsHandler;
import io.spinagent.host.HostLayer;
import io.spinagent.host.HostLayers;
import io.spinagent.host.HostLibraries;
import io.spinagent.plugin.config.SpinAgentPluginConfig;
import io.spinagent.plugin.tunnel.TunnelKubeconfigs;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.pf4j.PluginWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;

/**
 * Entry point Clouddriver's plugin framework instantiates. It chooses the host layer that serves
 * the Clouddriver at hand (or, when none does, logs why and registers nothing, so that Clouddriver
 * starts without SpinAgent), hands the plugin's own Spring context the configuration from {@code
 * spinnaker.extensibility.plugins.SpinAgent.Kubernetes.config}, and ties that context's life to the
 * plugin's and to Clouddriver's.
 *
 * <p>It is loaded by every Spinnaker line, so it names no class whose API differs between them.
 */
public class SpinAgentPlugin extends SpringLoaderPlugin {

  public static final String PLUGIN_ID = "SpinAgent.Kubernetes";

  private static final Logger log = LoggerFactory.getLogger(SpinAgentPlugin.class);

  private final SpinAgentPluginConfig pluginConfig;
  private volatile boolean serving;

  public SpinAgentPlugin(PluginWrapper wrapper, SpinAgentPluginConfig pluginConfig) {
    super(wrapper);
    this.pluginConfig = pluginConfig;
  }

  @Override
  public void registerBeanDefinitions(BeanDefinitionRegistry registry) {
    HostLibraries host = HostLibraries.of(SpringLoaderPlugin.class.getClassLoader());
    HostLayers.Choice choice = HostLayers.choose(host, getClass().getClassLoader(), bundle());
    if (choice instanceof HostLayers.Refused refused) {
      log.error(refused.message());
      return;
    }
    HostLayer layer = ((HostLayers.Chosen) choice).layer();
    log.info("{} runs on {} with its {} host layer", bundle(), host.describe(), layer.name());
    serving = true;

    pluginContext.getEnvironment().getPropertySources().addFirst(pluginConfig.asPropertySource());
    pluginContext
        .getBeanFactory()
        .registerSingleton("spinAgentPluginDescriptor", getWrapper().getDescriptor());
    registerLoader(registry);

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

    layer.registerInClouddriver(
        registry,
        () ->
            pluginContext.isActive()
                ? pluginContext.getBeanProvider(CredentialsHandler.class).getIfAvailable()
                : null);
  }

  /**
   * The plugin's own context starts when Clouddriver creates this loader, which its request
   * mappings wait for, so that the plugin's controllers are in place when Clouddriver maps them.
   */
  private void registerLoader(BeanDefinitionRegistry registry) {
    String loader = PLUGIN_ID + ".loader";
    registry.registerBeanDefinition(
        loader,
        BeanDefinitionBuilder.genericBeanDefinition(
                GuardedSpringLoader.class,
                () ->
                    new GuardedSpringLoader(
                        pluginContext, getClass().getClassLoader(), getPackagesToScan()))
            .getBeanDefinition());
    BeanDefinition mappings = registry.getBeanDefinition("requestMappingHandlerMapping");
    List<String> dependsOn = new ArrayList<>();
    if (mappings.getDependsOn() != null) {
      dependsOn.addAll(List.of(mappings.getDependsOn()));
    }
    dependsOn.add(loader);
    mappings.setDependsOn(dependsOn.toArray(new String[0]));
  }

  private String bundle() {
    return "SpinAgent " + getWrapper().getDescriptor().getVersion();
  }

  @Override
  public List<String> getPackagesToScan() {
    return List.of(getClass().getPackageName());
  }

  @Override
  public void start() {
    if (serving) {
      log.info("Starting plugin {} {}", PLUGIN_ID, getWrapper().getDescriptor().getVersion());
    }
  }

  @Override
  public void stop() {
    log.info("Stopping plugin {}", PLUGIN_ID);
    pluginContext.close();
  }
}
