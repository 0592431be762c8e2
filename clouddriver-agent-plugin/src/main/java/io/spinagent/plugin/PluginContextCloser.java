package io.spinagent.plugin;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ConfigurableApplicationContext;

/** Lives in Clouddriver's context and closes the plugin's context when Clouddriver's closes. */
final class PluginContextCloser implements DisposableBean {

  private final ConfigurableApplicationContext pluginContext;

  PluginContextCloser(ConfigurableApplicationContext pluginContext) {
    this.pluginContext = pluginContext;
  }

  @Override
  public void destroy() {
    pluginContext.close();
  }
}
