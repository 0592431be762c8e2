package io.spinagent.agent.config;

import io.spinagent.agent.config.ConfigNode.MapNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Turns the merged YAML tree into an {@link AgentConfig}: applies defaults, checks every value and
 * the rules between values, and reports each problem under its key path. Accounts are bound by
 * {@link AccountBinder}.
 */
final class ConfigBinder {

  /**
   * Agent ids and zone ids travel in the handshake and appear in Clouddriver's tables and UI:
   * letters, digits, '.', '_' and '-', starting and ending with a letter or digit, at most 253
   * characters (the length of a DNS name, which the default id is).
   */
  static final Pattern IDENTIFIER =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,251}[A-Za-z0-9])?");

  private final Supplier<String> hostname;

  /**
   * @param hostname where {@code agent.id} comes from when it is not configured
   */
  ConfigBinder(Supplier<String> hostname) {
    this.hostname = hostname;
  }

  AgentConfig bind(MapNode root, Binding binding) {
    MapReader r = new MapReader(root, binding);
    AgentIdentityConfig agent = r.section("agent", this::agent);
    ClouddriverConfig clouddriver = r.section("clouddriver", this::clouddriver);
    KubernetesConfig kubernetes = r.section("kubernetes", ConfigBinder::kubernetes);
    ServerConfig server =
        r.section("server", s -> new ServerConfig(port(s, ServerConfig.DEFAULT_PORT)));
    PrometheusConfig prometheus = r.section("prometheus", p -> prometheus(p, server));
    LoggingConfig logging =
        r.section(
            "logging",
            l ->
                new LoggingConfig(
                    l.choice("format", LoggingConfig.Format.class, LoggingConfig.DEFAULT.format()),
                    l.choice("level", LoggingConfig.Level.class, LoggingConfig.DEFAULT.level())));
    TasksConfig tasks = r.section("tasks", this::tasks);
    int timeoutSeconds =
        r.integer("timeoutSeconds", AgentConfig.DEFAULT_TIMEOUT_SECONDS, 1, Integer.MAX_VALUE);
    OperationsConfig operations = r.section("operations", OperationsBinder::bind);
    r.finish();
    return new AgentConfig(
        agent,
        clouddriver,
        kubernetes,
        server,
        prometheus,
        logging,
        tasks,
        timeoutSeconds,
        operations);
  }

  private static KubernetesConfig kubernetes(MapReader k) {
    List<KubernetesAccountConfig> accounts = new AccountBinder().accounts(k);
    boolean noProxy = k.bool("noProxy", false);
    return new KubernetesConfig(
        noProxy ? accounts.stream().map(KubernetesAccountConfig::withNoProxy).toList() : accounts,
        cacheGroups(k),
        noProxy);
  }

  private AgentIdentityConfig agent(MapReader a) {
    Optional<String> id = identifier(a, "id");
    Optional<String> zoneId = identifier(a, "zoneId");
    return new AgentIdentityConfig(id.orElseGet(this::defaultAgentId), zoneId);
  }

  /** The value of {@code key} if it is set and a valid {@link #IDENTIFIER}; reported otherwise. */
  private static Optional<String> identifier(MapReader r, String key) {
    Optional<String> value = r.string(key);
    if (value.isPresent() && !IDENTIFIER.matcher(value.get()).matches()) {
      r.problem(
          key,
          "'"
              + value.get()
              + "' is not a valid id: use letters, digits, '.', '_' and '-',"
              + " starting and ending with a letter or digit, at most 253 characters");
      return Optional.empty();
    }
    return value;
  }

  /** The host name, made into a valid id: in a pod that is the pod name, unique per replica. */
  private String defaultAgentId() {
    String name = hostname.get();
    String cleaned =
        name == null
            ? ""
            : name.replaceAll("[^A-Za-z0-9._-]", "-").replaceAll("^[._-]+|[._-]+$", "");
    if (cleaned.length() > 253) {
      cleaned = cleaned.substring(0, 253).replaceAll("[._-]+$", "");
    }
    return cleaned.isEmpty() ? "spinagent" : cleaned;
  }

  private ClouddriverConfig clouddriver(MapReader c) {
    GrpcTarget grpc = ClouddriverConfig.DEFAULT_GRPC;
    Optional<String> target = c.string("grpc");
    if (target.isPresent()) {
      try {
        grpc = GrpcTarget.parse(target.get());
      } catch (IllegalArgumentException e) {
        c.problem("grpc", e.getMessage());
      }
    }
    boolean insecure = c.bool("insecure", false);
    boolean tlsSet = c.isSet("tls");
    TlsConfig tls = c.section("tls", this::tls);
    if (insecure && tlsSet) {
      c.problem(
          "tls",
          "has no effect because clouddriver.insecure is true (plaintext);"
              + " remove clouddriver.tls or set clouddriver.insecure to false");
    }
    AuthConfig auth = c.section("auth", this::auth);
    int heartbeat =
        c.integer(
            "keepAliveHeartbeatSeconds",
            ClouddriverConfig.DEFAULT_KEEP_ALIVE_HEARTBEAT_SECONDS,
            1,
            Integer.MAX_VALUE);
    int keepAliveTimeout =
        c.integer(
            "keepAliveTimeoutSeconds",
            ClouddriverConfig.DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS,
            1,
            Integer.MAX_VALUE);
    boolean noProxy = c.bool("noProxy", false);
    BackoffConfig backoff = c.section("backoff", this::backoff);
    OutboxConfig outbox =
        c.section(
            "outbox",
            o ->
                new OutboxConfig(
                    o.byteSize(
                        "maxBytes", OutboxConfig.DEFAULT_MAX_BYTES, OutboxConfig.MIN_MAX_BYTES)));
    return new ClouddriverConfig(
        grpc, insecure, tls, auth, heartbeat, keepAliveTimeout, backoff, outbox, noProxy);
  }

  private TlsConfig tls(MapReader t) {
    Optional<String> serverName = t.string("serverName");
    boolean insecureSkipVerify = t.bool("insecureSkipVerify", false);
    Optional<Path> clientCertFile = t.path("clientCertFile");
    Optional<Path> clientKeyFile = t.path("clientKeyFile");
    Optional<Path> cacertFile = t.path("cacertFile");
    Optional<String> clientKeyFilePassword = t.string("clientKeyFilePassword");
    if (clientKeyFilePassword.isPresent() && !t.isSet("clientKeyFile")) {
      t.problem("clientKeyFilePassword", "is the password of clientKeyFile, which is not set");
    }
    if (t.isSet("clientCertFile") != t.isSet("clientKeyFile")) {
      String missing = t.isSet("clientCertFile") ? "clientKeyFile" : "clientCertFile";
      String present = t.isSet("clientCertFile") ? "clientCertFile" : "clientKeyFile";
      t.problem(
          missing,
          "is required when "
              + t.pathOf(present)
              + " is set: mutual TLS needs both"
              + " the certificate and its private key");
    }
    if (insecureSkipVerify && t.isSet("cacertFile")) {
      t.problem(
          "insecureSkipVerify",
          "conflicts with "
              + t.pathOf("cacertFile")
              + ": a CA bundle is pointless when certificates are not verified; remove one of"
              + " them");
    }
    return new TlsConfig(
        serverName,
        insecureSkipVerify,
        clientCertFile,
        clientKeyFile,
        cacertFile,
        clientKeyFilePassword);
  }

  private AuthConfig auth(MapReader a) {
    Optional<String> token = a.string("token");
    Optional<Path> tokenFile = a.path("tokenFile");
    Optional<TokenCommandConfig> tokenCommand = Optional.empty();
    if (a.node("tokenCommand") instanceof MapNode) {
      tokenCommand = Optional.ofNullable(a.section("tokenCommand", ConfigBinder::tokenCommand));
    } else if (a.isSet("tokenCommand")) {
      a.problem(
          "tokenCommand",
          "expected a map of command, args, format and refreshIntervalSeconds, got "
              + a.node("tokenCommand").description());
    }
    List<String> sources =
        List.of("token", "tokenFile", "tokenCommand").stream().filter(a::isSet).toList();
    if (sources.size() > 1) {
      a.problem(
          sources.get(1),
          "set either "
              + a.pathOf(sources.get(0))
              + " or "
              + a.pathOf(sources.get(1))
              + ", not both ("
              + sources.get(0)
              + " is set at "
              + a.originOf(sources.get(0)).describe()
              + ")");
    }
    return new AuthConfig(token, tokenFile, tokenCommand);
  }

  /** {@code clouddriver.auth.tokenCommand}; null when it is not usable (reported). */
  private static TokenCommandConfig tokenCommand(MapReader c) {
    Optional<String> command = c.string("command");
    List<String> args = c.stringList("args", arg -> null);
    TokenCommandConfig.Format format = TokenCommandConfig.Format.JSON;
    Optional<String> formatText = c.isSet("format") ? Optional.of(formatText(c)) : Optional.empty();
    if (formatText.isPresent() && !formatText.get().isEmpty()) {
      try {
        format = TokenCommandConfig.Format.valueOf(formatText.get().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        c.problem(
            "format",
            "expected raw or json (or empty, which is json), got '" + formatText.get() + "'");
      }
    }
    int refresh = c.integer("refreshIntervalSeconds", 0, 0, Integer.MAX_VALUE);
    if (command.isEmpty()) {
      if (!c.isSet("command")) {
        c.problem("command", "is required: the program that prints the token");
      }
      return null;
    }
    return new TokenCommandConfig(command.get(), args, format, refresh);
  }

  /**
   * {@code format} as written; empty (as Armory's reference allows, meaning json) is not an error
   * here, unlike other strings.
   */
  private static String formatText(MapReader c) {
    ConfigNode node = c.node("format");
    if (node instanceof ConfigNode.ScalarNode scalar) {
      return scalar.text().trim();
    }
    if (node instanceof ConfigNode.ListNode list && list.items().isEmpty()) {
      // The reference prints the default as [].
      return "";
    }
    c.problem("format", "expected raw or json, got " + node.description());
    return "";
  }

  private BackoffConfig backoff(MapReader b) {
    Duration baseDelay = b.duration("baseDelay", BackoffConfig.DEFAULT_BASE_DELAY);
    double multiplier = b.decimal("multiplier", BackoffConfig.DEFAULT_MULTIPLIER, 1.0, 10.0);
    double jitter = b.decimal("jitter", BackoffConfig.DEFAULT_JITTER, 0.0, 1.0);
    Duration maxDelay = b.duration("maxDelay", BackoffConfig.DEFAULT_MAX_DELAY);
    if (maxDelay.compareTo(baseDelay) < 0) {
      b.problem(
          b.isSet("maxDelay") ? "maxDelay" : "baseDelay",
          "maxDelay ("
              + Durations.format(maxDelay)
              + ") must not be shorter than baseDelay ("
              + Durations.format(baseDelay)
              + ")");
    }
    return new BackoffConfig(baseDelay, multiplier, jitter, maxDelay);
  }

  private PrometheusConfig prometheus(MapReader p, ServerConfig server) {
    boolean enabled = p.bool("enabled", false);
    int port = port(p, PrometheusConfig.DEFAULT_PORT);
    if (enabled && port == server.port()) {
      p.problem("port", "must differ from server.port (both are " + port + ")");
    }
    return new PrometheusConfig(enabled, port);
  }

  private static int port(MapReader r, int defaultPort) {
    return r.integer("port", defaultPort, 1, 65535);
  }

  /** Armory's names and forms: a count and whole milliseconds; both above zero turn it on. */
  private static KubernetesConfig.CacheGroups cacheGroups(MapReader k) {
    int size = k.integer("cacheGroupSize", 0, 0, Integer.MAX_VALUE);
    long delayMs = k.longInteger("cacheGroupDelayMs", 0, 0, Long.MAX_VALUE);
    return new KubernetesConfig.CacheGroups(size, Duration.ofMillis(delayMs));
  }

  private TasksConfig tasks(MapReader t) {
    int total = t.integer("totalBudget", TasksConfig.DEFAULT_TOTAL_BUDGET, 1, Integer.MAX_VALUE);
    int perAccount =
        t.integer("budgetPerAccount", TasksConfig.DEFAULT_BUDGET_PER_ACCOUNT, 1, Integer.MAX_VALUE);
    if (perAccount > total) {
      t.problem(
          "budgetPerAccount",
          "must not exceed " + t.pathOf("totalBudget") + " (" + perAccount + " > " + total + ")");
    }
    return new TasksConfig(total, perAccount);
  }
}
