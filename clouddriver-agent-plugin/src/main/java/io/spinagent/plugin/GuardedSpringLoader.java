package io.spinagent.plugin;

import com.netflix.spinnaker.kork.plugins.api.spring.BeanPromoter;
import com.netflix.spinnaker.kork.plugins.api.spring.SpringLoaderBeanPostProcessor;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.Lifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.ConfigurationClassPostProcessor;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * Starts the plugin's Spring context inside Clouddriver's, as kork's {@code SpringLoader} does for
 * a {@code SpringLoaderPlugin} (scan the plugin's packages, refresh the context under
 * Clouddriver's, promote its controllers into Clouddriver's), with one difference: a plugin context
 * that fails to start is closed and its cause logged, and Clouddriver starts without SpinAgent
 * instead of not at all. Controllers reach Clouddriver's context only once the plugin's whole
 * context has started, so a failed start leaves nothing of SpinAgent behind.
 */
final class GuardedSpringLoader implements ApplicationContextAware {

  private static final Logger log = LoggerFactory.getLogger(GuardedSpringLoader.class);

  private final AnnotationConfigApplicationContext pluginContext;
  private final ClassLoader pluginClassLoader;
  private final List<String> packagesToScan;

  GuardedSpringLoader(
      AnnotationConfigApplicationContext pluginContext,
      ClassLoader pluginClassLoader,
      List<String> packagesToScan) {
    this.pluginContext = pluginContext;
    this.pluginClassLoader = pluginClassLoader;
    this.packagesToScan = packagesToScan;
  }

  @Override
  public void setApplicationContext(ApplicationContext applicationContext) {
    GenericApplicationContext clouddriver = (GenericApplicationContext) applicationContext;
    List<Runnable> promotions = new ArrayList<>();
    BeanPromoter promoter =
        (name, bean, type, primary) ->
            promotions.add(() -> promote(clouddriver, name, bean, type, primary));

    pluginContext.setParent(clouddriver);
    pluginContext.setClassLoader(pluginClassLoader);
    ConfigurationClassPostProcessor configurations = new ConfigurationClassPostProcessor();
    configurations.setBeanClassLoader(pluginClassLoader);
    configurations.setEnvironment(clouddriver.getEnvironment());
    DefaultResourceLoader resources = new DefaultResourceLoader();
    resources.setClassLoader(pluginClassLoader);
    configurations.setResourceLoader(resources);
    pluginContext.addBeanFactoryPostProcessor(configurations);
    pluginContext
        .getBeanFactory()
        .addBeanPostProcessor(new SpringLoaderBeanPostProcessor(pluginContext, promoter));
    pluginContext.getBeanFactory().addBeanPostProcessor(new StopOnDestroy());
    try {
      pluginContext.scan(packagesToScan.toArray(new String[0]));
      pluginContext.refresh();
    } catch (BeansException | IllegalStateException | LinkageError e) {
      log.error(
          "SpinAgent did not start, so Clouddriver runs without it (no agent port, no"
              + " /spinagent API, no tunnel): {}. Fix the cause and restart Clouddriver.",
          rootCause(e),
          e);
      pluginContext.close();
      return;
    }
    promotions.forEach(Runnable::run);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void promote(
      GenericApplicationContext clouddriver,
      String name,
      Object bean,
      Class type,
      boolean primary) {
    clouddriver.registerBean(name, type, () -> bean, definition -> definition.setPrimary(primary));
  }

  /**
   * Stops a started lifecycle bean when its context destroys it. A refresh that fails after some
   * phases started destroys the context's beans without stopping them on Spring 5 (the 1.36 line),
   * which would leave the agent port or the tunnel listening in a Clouddriver without SpinAgent. On
   * a normal close the context has already stopped them, and this does nothing.
   */
  static final class StopOnDestroy implements DestructionAwareBeanPostProcessor {

    @Override
    public boolean requiresDestruction(Object bean) {
      return bean instanceof Lifecycle;
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) {
      if (bean instanceof Lifecycle lifecycle && lifecycle.isRunning()) {
        lifecycle.stop();
      }
    }
  }

  private static String rootCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }
}
