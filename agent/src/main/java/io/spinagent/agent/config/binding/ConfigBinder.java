package io.spinagent.agent.config.binding;

import io.spinagent.agent.armory.ArmoryAgentKeys;
import io.spinagent.agent.armory.ArmoryRewrite;
import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.AgentIdentityConfig;
import io.spinagent.agent.config.AuthConfig;
import io.spinagent.agent.config.BackoffConfig;
import io.spinagent.agent.config.ClouddriverConfig;
import io.spinagent.agent.config.GrpcTarget;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.KubernetesConfig;
import io.spinagent.agent.config.LoggingConfig;
import io.spinagent.agent.config.OperationsConfig;
import io.spinagent.agent.config.OutboxConfig;
import io.spinagent.agent.config.PrometheusConfig;
import io.spinagent.agent.config.ServerConfig;
import io.spinagent.agent.config.TasksConfig;
import io.spinagent.agent.config.TlsConfig;
import io.spinagent.agent.config.TokenCommandConfig;
import io.spinagent.agent.config.yaml.ConfigNode;
import io.spinagent.agent.config.yaml.ConfigNode.Entry;
import io.spinagent.agent.config.yaml.ConfigNode.MapNode;
import io.spinagent.agent.config.yaml.Excerpt;
import io.spinagent.agent.config.yaml.Origin;
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
 *
 * <p>Armory Scale Agent's spellings and value forms are read with Armory's meaning, and each is
 * recorded as a rewrite for the converter (see {@link ArmoryAgentKeys}).
 */
final class ConfigBinder {

  /**
   * Agent ids and zone ids travel in the handshake and appear in Clouddriver's tables and UI:
   * letters, digits, '.', '_' and '-', starting and ending with a letter or digit, at most 253
   * characters (the length of a DNS name, which the default id is).
   */
  static final Pattern IDENTIFIER =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,251}[A-Za-z0-9])?");

  /** The length {@link #IDENTIFIER} allows, checked first: a longer value is refused unread. */
  static final int MAX_IDENTIFIER_LENGTH = 253;

  private final Supplier<String> hostname;

  /**
   * @param hostname where {@code agent.id} comes from when it is not configured
   */
  ConfigBinder(Supplier<String> hostname) {
    this.hostname = hostname;
  }

  /**
   * @param armoryFileName the main file has the name of Armory Scale Agent's configuration
   * @param overlayOnly the tree is an overlay read on its own (for the converter): defaults that
   *     belong to the main file are not made explicit in it
   */
  AgentConfig bind(MapNode root, Binding binding, boolean armoryFileName, boolean overlayOnly) {
    MapReader r = new MapReader(root, binding);
    AgentIdentityConfig agent = r.section("agent", this::agent);
    ClouddriverConfig clouddriver = r.section("clouddriver", this::clouddriver);
    KubernetesConfig kubernetes = r.section("kubernetes", ConfigBinder::kubernetes);
    ServerConfig server = r.section("server", ConfigBinder::server);
    PrometheusConfig prometheus = r.section("prometheus", p -> prometheus(p, server));
    LoggingConfig logging =
        r.section(
            "logging",
            l ->
                new LoggingConfig(
                    l.choice("format", LoggingConfig.Format.class, LoggingConfig.DEFAULT.format()),
                    level(l)));
    TasksConfig tasks = r.section("tasks", this::tasks);
    // 0 is no timeout, as in Armory Scale Agent (whose default it is).
    int timeoutSeconds =
        r.integer("timeoutSeconds", AgentConfig.DEFAULT_TIMEOUT_SECONDS, 0, Integer.MAX_VALUE);
    OperationsConfig operations = r.section("operations", OperationsBinder::bind);
    r.finish();
    if (!overlayOnly && (armoryFileName || binding.usesArmoryForms())) {
      armoryInsecureDefault(root, binding);
    }
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

  /**
   * Armory Scale Agent connects in plaintext unless told otherwise (since its 1.0.42); SpinAgent
   * uses TLS unless told otherwise. A file written for Armory that relies on Armory's default would
   * try TLS against a plaintext port: say so now, and have the converter keep Armory's meaning.
   * Files that set up TLS ({@code clouddriver.tls}) meant TLS, as Armory reads them too.
   */
  private static void armoryInsecureDefault(MapNode root, Binding binding) {
    Entry clouddriver = root.entries().get("clouddriver");
    MapNode settings = clouddriver != null && clouddriver.value() instanceof MapNode m ? m : null;
    if (settings != null
        && (settings.entries().containsKey("insecure") || settings.entries().containsKey("tls"))) {
      return;
    }
    Origin where = settings != null ? clouddriver.keyOrigin() : root.origin();
    binding.problems.warn(
        where,
        "clouddriver.insecure",
        "not set, in a file written for Armory Scale Agent: Armory's agent (1.0.42 and later)"
            + " then connects in plaintext, SpinAgent connects with TLS. If Clouddriver's agent"
            + " port is plaintext (the plugin's spinagent.grpc.security.enabled is false), set"
            + " clouddriver.insecure: true; otherwise configure clouddriver.tls");
    binding.rewrite(
        new ArmoryRewrite(
            List.of("clouddriver", "insecure"),
            ArmoryRewrite.Kind.ADD,
            true,
            "clouddriver.insecure",
            where,
            "added as true: Armory Scale Agent's default (plaintext), which SpinAgent's (TLS)"
                + " differs from"));
  }

  /**
   * {@code logging.level}: SpinAgent's levels, and Armory's names for them ({@code warning}) or
   * above them ({@code fatal}, {@code panic}, which become {@code error}).
   */
  private static LoggingConfig.Level level(MapReader l) {
    Optional<String> text = l.string("level");
    if (text.isEmpty()) {
      return LoggingConfig.DEFAULT.level();
    }
    String written = text.get().trim().toLowerCase(Locale.ROOT);
    switch (written) {
      case "warning" -> {
        l.rewriteValue("level", "warn", "Armory Scale Agent's name for warn");
        return LoggingConfig.Level.WARN;
      }
      case "fatal", "panic" -> {
        l.warn(
            "level",
            "'"
                + written
                + "' is a level of Armory Scale Agent's logger above error; SpinAgent's most"
                + " severe level is error, so errors are logged too");
        l.rewriteValue(
            "level", "error", "'" + written + "' is above SpinAgent's most severe level");
        return LoggingConfig.Level.ERROR;
      }
      default -> {
        for (LoggingConfig.Level level : LoggingConfig.Level.values()) {
          if (level.configName().equals(written)) {
            return level;
          }
        }
        l.problem(
            "level",
            "expected one of trace, debug, info, warn, error (or Armory Scale Agent's warning,"
                + " fatal, panic), got '"
                + text.get()
                + "'");
        return LoggingConfig.DEFAULT.level();
      }
    }
  }

  private AgentIdentityConfig agent(MapReader a) {
    Optional<String> id = identifier(a, "id");
    Optional<String> zoneId = identifier(a, "zoneId");
    return new AgentIdentityConfig(id.orElseGet(this::defaultAgentId), zoneId);
  }

  /** The value of {@code key} if it is set and a valid {@link #IDENTIFIER}; reported otherwise. */
  private static Optional<String> identifier(MapReader r, String key) {
    Optional<String> value = r.string(key);
    if (value.isEmpty()) {
      return value;
    }
    String id = value.get();
    if (id.length() > MAX_IDENTIFIER_LENGTH) {
      r.problem(
          key,
          Excerpt.quoted(id)
              + " is longer than "
              + MAX_IDENTIFIER_LENGTH
              + " characters, the limit for an id");
      return Optional.empty();
    }
    if (!IDENTIFIER.matcher(id).matches()) {
      r.problem(
          key,
          Excerpt.quoted(id)
              + " is not a valid id: use letters, digits, '.', '_' and '-',"
              + " starting and ending with a letter or digit, at most "
              + MAX_IDENTIFIER_LENGTH
              + " characters");
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
    // 0 sends no pings, as in Armory Scale Agent.
    int heartbeat =
        c.integer(
            "keepAliveHeartbeatSeconds",
            ClouddriverConfig.DEFAULT_KEEP_ALIVE_HEARTBEAT_SECONDS,
            0,
            Integer.MAX_VALUE);
    // 0 is gRPC's own default, as in Armory Scale Agent (grpc-go).
    int keepAliveTimeout =
        c.integer(
            c.spelling("keepAliveTimeoutSeconds", "keepAliveTimeOutSeconds"),
            ClouddriverConfig.DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS,
            0,
            Integer.MAX_VALUE);
    if (keepAliveTimeout == 0) {
      keepAliveTimeout = ClouddriverConfig.GRPC_DEFAULT_KEEP_ALIVE_TIMEOUT_SECONDS;
    }
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
    String passwordKey = t.spelling("clientKeyFilePassword", "clientKeyPassword");
    Optional<String> clientKeyFilePassword = t.string(passwordKey);
    if (clientKeyFilePassword.isPresent() && !t.isSet("clientKeyFile")) {
      t.problem(passwordKey, "is the password of clientKeyFile, which is not set");
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
    Duration baseDelay = b.durationOrNanoseconds("baseDelay", BackoffConfig.DEFAULT_BASE_DELAY);
    double multiplier = b.decimal("multiplier", BackoffConfig.DEFAULT_MULTIPLIER, 1.0, 10.0);
    double jitter = b.decimal("jitter", BackoffConfig.DEFAULT_JITTER, 0.0, 1.0);
    Duration maxDelay = b.durationOrNanoseconds("maxDelay", BackoffConfig.DEFAULT_MAX_DELAY);
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

  private static ServerConfig server(MapReader s) {
    return new ServerConfig(
        port(s, ServerConfig.DEFAULT_PORT),
        s.duration("headerTimeout", ServerConfig.DEFAULT_HEADER_TIMEOUT),
        s.duration("idleTimeout", ServerConfig.DEFAULT_IDLE_TIMEOUT),
        s.integer("maxConnections", ServerConfig.DEFAULT_MAX_CONNECTIONS, 1, 10_000));
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

  /** 0 is no limit, as in Armory Scale Agent. */
  private TasksConfig tasks(MapReader t) {
    int total = t.integer("totalBudget", TasksConfig.DEFAULT_TOTAL_BUDGET, 0, Integer.MAX_VALUE);
    if (total == 0) {
      total = TasksConfig.UNLIMITED;
    }
    int perAccount =
        t.integer("budgetPerAccount", TasksConfig.DEFAULT_BUDGET_PER_ACCOUNT, 0, Integer.MAX_VALUE);
    if (perAccount == 0) {
      perAccount = total;
    }
    if (perAccount > total) {
      t.problem(
          "budgetPerAccount",
          "must not exceed " + t.pathOf("totalBudget") + " (" + perAccount + " > " + total + ")");
    }
    return new TasksConfig(total, perAccount);
  }
}
