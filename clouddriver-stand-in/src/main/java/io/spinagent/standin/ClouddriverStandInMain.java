package io.spinagent.standin;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * Runs a {@link ClouddriverStandIn} as a process of its own, on the class path of one Spinnaker
 * line's module:
 *
 * <pre>java -cp &lt;line's class path&gt; io.spinagent.standin.ClouddriverStandInMain
 *     --standin.bundle=PLUGIN.zip [--standin.jdbc-url=URL --standin.db-user=U
 *     --standin.db-password=P] [--any.spring.property=value ...]</pre>
 *
 * The bundle is put in a fresh plugins root, as Halyard or the Operator would; with a JDBC URL the
 * stand-in runs as a Clouddriver with {@code sql.enabled} on that database (creating Clouddriver's
 * tables first). Every other {@code --key=value} is Clouddriver configuration, e.g. {@code
 * --spinnaker.extensibility.plugins.SpinAgent.Kubernetes.enabled=true}. Prints {@code READY <http
 * port>} once started; SIGTERM stops Clouddriver (as its shutdown hook would), then the pool and
 * the plugins root.
 */
public final class ClouddriverStandInMain {

  static final String BUNDLE = "standin.bundle";
  static final String JDBC_URL = "standin.jdbc-url";

  /** kork-sql's setting for the SQL dialect of Clouddriver's connections. */
  static final String DIALECT = "sql.connectionPools.default.dialect";

  private ClouddriverStandInMain() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> options = options(args);
    String bundle = options.get(BUNDLE);
    if (bundle == null || bundle.isBlank()) {
      throw new IllegalArgumentException("--" + BUNDLE + "=<plugin bundle zip> is required");
    }
    PluginsRoot pluginsRoot = PluginsRoot.withBundle(Path.of(bundle));
    StandInDatabase database =
        options.containsKey(JDBC_URL)
            ? StandInDatabase.open(
                options.get(JDBC_URL),
                options.getOrDefault("standin.db-user", ""),
                options.getOrDefault("standin.db-password", ""),
                options.get(DIALECT))
            : null;

    Map<String, Object> defaults = new LinkedHashMap<>();
    defaults.put("spring.application.name", "clouddriver");
    defaults.put("spring.main.register-shutdown-hook", false);
    defaults.put("spring.main.banner-mode", "off");
    defaults.put("server.address", "127.0.0.1");
    defaults.put("server.port", 0);
    defaults.put("spinnaker.extensibility.plugins-root-path", pluginsRoot.directory().toString());
    // No network here: never reach for the public Spinnaker plugin repositories.
    defaults.put("spinnaker.extensibility.enable-default-repositories", false);
    defaults.put("spinnaker.extensibility.remote-plugins.cache.enabled", false);
    if (database != null) {
      defaults.put("sql.enabled", true);
      defaults.put("sql.cache.enabled", true);
    }
    ApplicationContextInitializer<GenericApplicationContext> databaseBeans =
        context -> {
          if (database != null) {
            // Definitions, not bare singletons: Clouddriver's beans may look theirs up by type.
            context.registerBean("standInDatabase", StandInDatabase.class, () -> database);
            context.registerBean("dataSource", DataSource.class, () -> database.dataSource());
            context.registerBean("jooq", DSLContext.class, () -> database.jooq());
          }
        };
    ConfigurableApplicationContext clouddriver =
        new SpringApplicationBuilder(ClouddriverStandIn.class)
            .properties(defaults)
            .initializers(databaseBeans)
            .run(springArguments(args));

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  clouddriver.close();
                  if (database != null) {
                    database.close();
                  }
                  pluginsRoot.close();
                  stopped.countDown();
                },
                "clouddriver-stand-in-shutdown"));
    System.out.println("READY " + clouddriver.getEnvironment().getProperty("local.server.port"));
    System.out.flush();
    stopped.await();
  }

  /** The {@code --key=value} arguments as a map. */
  static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("arguments are --name=value, got " + arg);
      }
      options.put(arg.substring(2, eq), arg.substring(eq + 1));
    }
    return options;
  }

  /** What Spring reads: everything but the database's password. */
  private static String[] springArguments(String[] args) {
    List<String> spring = new ArrayList<>();
    for (String arg : args) {
      if (!arg.startsWith("--standin.db-password=")) {
        spring.add(arg);
      }
    }
    return spring.toArray(new String[0]);
  }
}
