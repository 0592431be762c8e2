package io.spinagent.sandbox;

import io.spinagent.sandbox.host.ClouddriverHost;
import io.spinagent.sandbox.host.PluginsRoot;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The README's first command. For now it runs the Clouddriver host with the plugin loaded from its
 * release bundle; the simulated cluster, the database and a connected agent join it as their
 * issues land.
 */
public final class SandboxMain {

  private static final String PLUGIN_ID = "SpinAgent.Kubernetes";

  private SandboxMain() {}

  public static void main(String[] args) {
    PluginsRoot pluginsRoot = PluginsRoot.withBundle(PluginsRoot.builtBundle());
    ConfigurableApplicationContext host;
    try {
      host =
          ClouddriverHost.start(
              pluginsRoot.directory(),
              Map.of(
                  "spinnaker.extensibility.plugins." + PLUGIN_ID + ".enabled", true,
                  "spinagent.grpc.port", 9091));
    } catch (RuntimeException e) {
      pluginsRoot.close();
      throw e;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  host.close();
                  pluginsRoot.close();
                },
                "sandbox-shutdown"));

    String port = host.getEnvironment().getProperty("local.server.port");
    System.out.printf(
        "%n"
            + "SpinAgent sandbox (partial): a Clouddriver host with the %s plugin loaded from its bundle.%n"
            + "  Clouddriver REST   http://localhost:%s/spinagent/info%n"
            + "  Agent gRPC port    localhost:9091 (grpc.health.v1.Health answers SERVING)%n"
            + "  Not yet here: the simulated cluster, the database and a connected agent.%n"
            + "Press Ctrl-C to stop.%n",
        PLUGIN_ID,
        port);
  }
}
