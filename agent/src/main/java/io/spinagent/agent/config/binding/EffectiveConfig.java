package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.AuthConfig;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.CustomResourceConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.OperationsConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.config.TlsConfig;
import io.spinagent.agent.config.yaml.ByteSizes;
import io.spinagent.agent.config.yaml.YamlWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration the agent runs with, every default filled in, as SpinAgent YAML: what {@code
 * --check} prints, so that an operator (in particular one carrying over a file written for Armory
 * Scale Agent) sees what each setting ended up as. Secrets are shown as {@code <redacted>}; without
 * secrets the output loads back to the same configuration.
 */
public final class EffectiveConfig {

  static final String REDACTED = "<redacted>";

  private EffectiveConfig() {}

  public static String yaml(AgentConfig config) {
    StringWriter text = new StringWriter();
    print(config, new PrintWriter(text));
    return text.toString();
  }

  /**
   * Prints {@link #yaml} to {@code out} one account at a time, so that a configuration with tens of
   * thousands of accounts is never held as YAML all at once.
   */
  public static void print(AgentConfig config, PrintWriter out) {
    YamlWriter yaml = new YamlWriter(out);
    yaml.startMap();
    Map<String, Object> agent = new LinkedHashMap<>();
    agent.put("id", config.agent().id());
    config.agent().zoneId().ifPresent(zone -> agent.put("zoneId", zone));
    yaml.key("agent");
    yaml.value(agent);
    yaml.key("clouddriver");
    yaml.value(clouddriver(config.clouddriver()));
    yaml.key("kubernetes");
    yaml.startMap();
    yaml.key("noProxy");
    yaml.value(config.kubernetes().noProxy());
    yaml.key("accounts");
    yaml.startList();
    config.kubernetes().accounts().forEach(account -> yaml.value(account(account)));
    yaml.endList();
    yaml.endMap();
    Map<String, Object> tail = new LinkedHashMap<>();
    Map<String, Object> server = put(tail, "server");
    server.put("port", config.server().port());
    server.put("headerTimeout", Durations.format(config.server().headerTimeout()));
    server.put("idleTimeout", Durations.format(config.server().idleTimeout()));
    server.put("maxConnections", config.server().maxConnections());
    Map<String, Object> prometheus = put(tail, "prometheus");
    prometheus.put("enabled", config.prometheus().enabled());
    prometheus.put("port", config.prometheus().port());
    Map<String, Object> logging = put(tail, "logging");
    logging.put("format", config.logging().format().configName());
    logging.put("level", config.logging().level().configName());
    Map<String, Object> tasks = put(tail, "tasks");
    tasks.put("totalBudget", budget(config.tasks().totalBudget()));
    tasks.put("budgetPerAccount", budget(config.tasks().budgetPerAccount()));
    tail.put("timeoutSeconds", config.timeoutSeconds());
    tail.put("operations", operations(config.operations()));
    tail.forEach(
        (key, value) -> {
          yaml.key(key);
          yaml.value(value);
        });
    yaml.endMap();
    yaml.end();
    out.flush();
  }

  private static Map<String, Object> clouddriver(ClouddriverConfig c) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("grpc", c.grpc().toString());
    map.put("insecure", c.insecure());
    map.put("noProxy", c.noProxy());
    if (!c.insecure()) {
      TlsConfig tls = c.tls();
      Map<String, Object> t = put(map, "tls");
      tls.serverName().ifPresent(v -> t.put("serverName", v));
      t.put("insecureSkipVerify", tls.insecureSkipVerify());
      tls.clientCertFile().ifPresent(v -> t.put("clientCertFile", v.toString()));
      tls.clientKeyFile().ifPresent(v -> t.put("clientKeyFile", v.toString()));
      tls.clientKeyFilePassword().ifPresent(v -> t.put("clientKeyFilePassword", REDACTED));
      tls.cacertFile().ifPresent(v -> t.put("cacertFile", v.toString()));
    }
    AuthConfig auth = c.auth();
    if (auth.isConfigured()) {
      Map<String, Object> a = put(map, "auth");
      auth.token().ifPresent(v -> a.put("token", REDACTED));
      auth.tokenFile().ifPresent(v -> a.put("tokenFile", v.toString()));
      auth.tokenCommand()
          .ifPresent(
              command -> {
                Map<String, Object> tc = put(a, "tokenCommand");
                tc.put("command", command.command());
                tc.put("args", command.args());
                tc.put("format", command.format().configName());
                tc.put("refreshIntervalSeconds", command.refreshIntervalSeconds());
              });
    }
    map.put("keepAliveHeartbeatSeconds", c.keepAliveHeartbeatSeconds());
    map.put("keepAliveTimeoutSeconds", c.keepAliveTimeoutSeconds());
    Map<String, Object> backoff = put(map, "backoff");
    backoff.put("baseDelay", Durations.format(c.backoff().baseDelay()));
    backoff.put("multiplier", c.backoff().multiplier());
    backoff.put("jitter", c.backoff().jitter());
    backoff.put("maxDelay", Durations.format(c.backoff().maxDelay()));
    put(map, "outbox").put("maxBytes", ByteSizes.format(c.outbox().maxBytes()));
    return map;
  }

  private static Map<String, Object> account(KubernetesAccountConfig a) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("name", a.name());
    a.kubeconfigFile().map(Path::toString).ifPresent(v -> map.put("kubeconfigFile", v));
    a.kubeconfigContents().ifPresent(v -> map.put("kubeconfigContents", REDACTED));
    if (a.serviceAccount()) {
      map.put("serviceAccount", true);
    }
    a.context().ifPresent(v -> map.put("context", v));
    map.put("insecure", a.insecure());
    map.put("namespaces", a.namespaces());
    map.put("omitNamespaces", a.omitNamespaces());
    map.put("kinds", a.kinds());
    map.put("omitKinds", a.omitKinds());
    map.put("onlyNamespacedResources", a.onlyNamespacedResources());
    map.put("onlySpinnakerManaged", a.onlySpinnakerManaged());
    Map<String, Object> permissions = put(map, "permissions");
    permissions.put("READ", a.permissions().read());
    permissions.put("WRITE", a.permissions().write());
    map.put("maxResumableResourceAgeMs", a.maxResumableResourceAge().toMillis());
    map.put("noProxy", a.noProxy());
    a.metrics().ifPresent(v -> map.put("metrics", v));
    if (!a.customResources().isEmpty()) {
      map.put(
          "customResources",
          a.customResources().stream().map(CustomResourceConfig::toYaml).toList());
    }
    return map;
  }

  private static Map<String, Object> operations(OperationsConfig o) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("maxConcurrentPerAccount", o.maxConcurrentPerAccount());
    map.put("maxQueuedPerAccount", o.maxQueuedPerAccount());
    if (!o.allow().isEmpty()) {
      List<Object> rules = new ArrayList<>();
      for (OperationsConfig.AllowRule rule : o.allow()) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("verbs", rule.verbs());
        r.put("paths", rule.paths());
        rules.add(r);
      }
      map.put("allow", rules);
    }
    return map;
  }

  /** {@link TasksConfig#UNLIMITED} is written as the file writes it. */
  private static int budget(int value) {
    return value == TasksConfig.UNLIMITED ? 0 : value;
  }

  private static Map<String, Object> put(Map<String, Object> parent, String key) {
    Map<String, Object> child = new LinkedHashMap<>();
    parent.put(key, child);
    return child;
  }
}
