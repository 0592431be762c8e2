package io.spinagent.benchmarks.fleet;

import io.spinagent.sandbox.db.SandboxDatabase;
import io.spinagent.sandbox.host.ClouddriverHost;
import io.spinagent.sandbox.host.PluginsRoot;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One Clouddriver replica with the plugin, in a process of its own: the sandbox's Clouddriver
 * stand-in ({@link ClouddriverHost}, Spring Boot 2.7 with kork's plugin framework) loading the
 * built plugin bundle, on an existing database (the benchmark's embedded PostgreSQL or MariaDB),
 * with Clouddriver's account storage, plaintext gRPC for agents, and optionally the plugin's HA
 * settings. It runs on the sandbox's class path, where Clouddriver's libraries are at Clouddriver's
 * versions and the plugin is only the bundle.
 *
 * <p>Prints {@code READY} once started; SIGTERM stops Clouddriver (as its own shutdown hook would),
 * then the pool and the plugins root.
 *
 * <pre>java -cp benchmarks/target/classes:&lt;sandbox class path&gt; ... PluginHostMain
 *     --bundle=ZIP --jdbc-url=URL --db-user=U --db-password=P --http-port=N --grpc-port=N
 *     --tunnel-port=N [--ha-port=N --ha-secret=S]</pre>
 */
public final class PluginHostMain {

  static final String PLUGIN_ID = "SpinAgent.Kubernetes";

  private PluginHostMain() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> options = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments are --name=value, got " + arg);
      }
      options.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    SandboxDatabase database =
        SandboxDatabase.external(
            required(options, "jdbc-url"),
            options.getOrDefault("db-user", ""),
            options.getOrDefault("db-password", ""));
    PluginsRoot pluginsRoot = PluginsRoot.withBundle(Path.of(required(options, "bundle")));
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.main.register-shutdown-hook", false);
    properties.put("spring.main.banner-mode", "off");
    properties.put("logging.config", "classpath:sandbox-logback.xml");
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", required(options, "http-port"));
    properties.put("spinnaker.extensibility.plugins." + PLUGIN_ID + ".enabled", true);
    properties.put("spinagent.grpc.address", "127.0.0.1");
    properties.put("spinagent.grpc.port", required(options, "grpc-port"));
    properties.put("spinagent.tunnel.port", required(options, "tunnel-port"));
    if (options.containsKey("ha-secret")) {
      properties.put("spinagent.ha.shared-secret", options.get("ha-secret"));
      properties.put("spinagent.ha.address", "127.0.0.1");
      properties.put("spinagent.ha.advertise-address", "127.0.0.1");
      properties.put("spinagent.ha.port", required(options, "ha-port"));
    }
    ConfigurableApplicationContext host =
        ClouddriverHost.startOnSql(pluginsRoot.directory(), properties, database);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  host.close();
                  database.close();
                  pluginsRoot.close();
                  stopped.countDown();
                },
                "fleet-bench-host-shutdown"));
    System.out.println("READY " + host.getEnvironment().getProperty("local.server.port"));
    System.out.flush();
    stopped.await();
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return value;
  }
}
