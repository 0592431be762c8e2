package io.spinagent.sandbox;

import io.spinagent.sandbox.host.ClouddriverProcess;
import java.io.Console;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The sandbox's command line. Every flag has a default that suits a first run on a laptop; the
 * specs use {@code --random-ports --no-color}.
 *
 * @param jdbcUrl an external MySQL, MariaDB or PostgreSQL database; empty: an embedded PostgreSQL
 * @param dbUser user for {@code jdbcUrl}
 * @param dbPassword password for {@code jdbcUrl}
 * @param clouddriverPort Clouddriver's HTTP port (its REST API and the plugin's)
 * @param grpcPort the plugin's port for agents
 * @param tunnelPort the plugin's Kubernetes API tunnel
 * @param kubernetesPort the simulated cluster's API server
 * @param agentAdminPort the agent's health and status endpoint
 * @param plaintext gRPC between agent and plugin without TLS
 * @param color ANSI colours in the live view
 * @param refresh how often the live view reads the cache tables
 * @param account the Spinnaker account name of the simulated cluster
 * @param line the Spinnaker line whose Clouddriver stand-in runs the plugin
 * @param replicas Clouddriver replicas on the one database: 1, or 2 for high availability (the
 *     agent streams to the first; the second forwards to it)
 */
public record SandboxOptions(
    Optional<String> jdbcUrl,
    String dbUser,
    String dbPassword,
    int clouddriverPort,
    int grpcPort,
    int tunnelPort,
    int kubernetesPort,
    int agentAdminPort,
    boolean plaintext,
    boolean color,
    Duration refresh,
    String account,
    String line,
    int replicas) {

  public static final String USAGE =
      """
Usage: ./mvnw -Psandbox -DskipTests verify [-Dsandbox.args="<flags>"]
  --line LINE             the Spinnaker line Clouddriver runs: 1.36 (1.36 to 2025.3), 2025.4 (2025.4,
                          2026.0), 2026.1, 2026.2 (2026.2 to 2026.4; the default)
  --jdbc-url URL          use this MySQL/MariaDB/PostgreSQL database instead of an embedded PostgreSQL
  --db-user USER          database user for --jdbc-url (default: none)
  --db-password PASSWORD  database password for --jdbc-url (default: none)
  --clouddriver-port N    Clouddriver's HTTP port (default 7002)
  --grpc-port N           the plugin's port for agents (default 9091)
  --tunnel-port N         the plugin's Kubernetes API tunnel (default 9092)
  --kubernetes-port N     the simulated cluster's API server (default 6443)
  --agent-admin-port N    the agent's /health endpoint (default 8082)
  --random-ports          free random ports for all of the above
  --plaintext             agent <-> plugin gRPC without TLS (default: TLS with generated certificates)
  --replicas N            Clouddriver replicas on the database: 1 (the default), or 2 to try high
                          availability (the second forwards tunnel requests and commands to the first)
  --account NAME          account name of the simulated cluster (default sandbox)
  --refresh-millis N      how often the live view reads the cache (default 500)
  --no-color              no ANSI colours
  --verbose               SpinAgent's own INFO logs (default: warnings only)
  --help                  this text
""";

  /** Thrown for a command line that cannot be used; the message names the problem. */
  public static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }

  public static SandboxOptions parse(String... args) {
    Optional<String> jdbcUrl = Optional.empty();
    String dbUser = "";
    String dbPassword = "";
    int clouddriverPort = 7002;
    int grpcPort = 9091;
    int tunnelPort = 9092;
    int kubernetesPort = 6443;
    int agentAdminPort = 8082;
    boolean randomPorts = false;
    boolean plaintext = false;
    boolean color = interactiveTerminal();
    Duration refresh = Duration.ofMillis(500);
    String account = "sandbox";
    String line = ClouddriverProcess.NEWEST_LINE;
    int replicas = 1;
    List<String> rest = new ArrayList<>(List.of(args));
    while (!rest.isEmpty()) {
      String flag = rest.remove(0);
      switch (flag) {
        case "--jdbc-url" -> jdbcUrl = Optional.of(value(flag, rest));
        case "--db-user" -> dbUser = value(flag, rest);
        case "--db-password" -> dbPassword = value(flag, rest);
        case "--clouddriver-port" -> clouddriverPort = port(flag, rest);
        case "--grpc-port" -> grpcPort = port(flag, rest);
        case "--tunnel-port" -> tunnelPort = port(flag, rest);
        case "--kubernetes-port" -> kubernetesPort = port(flag, rest);
        case "--agent-admin-port" -> agentAdminPort = port(flag, rest);
        case "--random-ports" -> randomPorts = true;
        case "--plaintext" -> plaintext = true;
        case "--no-color" -> color = false;
        case "--color" -> color = true;
        case "--account" -> account = value(flag, rest);
        case "--line" -> line = value(flag, rest);
        case "--replicas" -> {
          replicas = integer(flag, rest);
          if (replicas != 1 && replicas != 2) {
            throw new UsageException("--replicas must be 1 or 2, not " + replicas);
          }
        }
        case "--refresh-millis" -> {
          int millis = integer(flag, rest);
          if (millis < 50) {
            throw new UsageException("--refresh-millis must be at least 50, not " + millis);
          }
          refresh = Duration.ofMillis(millis);
        }
        default -> throw new UsageException("unknown flag '" + flag + "'");
      }
    }
    if (jdbcUrl.isPresent() && !jdbcUrl.get().startsWith("jdbc:")) {
      throw new UsageException(
          "--jdbc-url must be a JDBC URL (jdbc:postgresql://..., jdbc:mysql://...,"
              + " jdbc:mariadb://...), not '"
              + jdbcUrl.get()
              + "'");
    }
    if (!account.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
      throw new UsageException(
          "--account must be lower-case letters, digits and '-', not '" + account + "'");
    }
    if (!ClouddriverProcess.LINES.contains(line)) {
      throw new UsageException(
          "--line must be one of " + ClouddriverProcess.LINES + ", not '" + line + "'");
    }
    if (randomPorts) {
      clouddriverPort = 0;
      grpcPort = 0;
      tunnelPort = 0;
      kubernetesPort = 0;
      agentAdminPort = 0;
    }
    return new SandboxOptions(
        jdbcUrl,
        dbUser,
        dbPassword,
        clouddriverPort,
        grpcPort,
        tunnelPort,
        kubernetesPort,
        agentAdminPort,
        plaintext,
        color,
        refresh,
        account,
        line,
        replicas);
  }

  public static boolean wantsHelp(String... args) {
    return List.of(args).contains("--help") || List.of(args).contains("-h");
  }

  private static String value(String flag, List<String> rest) {
    if (rest.isEmpty() || rest.get(0).startsWith("--")) {
      throw new UsageException(flag + " needs a value");
    }
    return rest.remove(0);
  }

  private static int integer(String flag, List<String> rest) {
    String value = value(flag, rest);
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " needs a number, not '" + value + "'");
    }
  }

  private static int port(String flag, List<String> rest) {
    int port = integer(flag, rest);
    if (port < 0 || port > 65535) {
      throw new UsageException(
          flag + " must be a port from 0 to 65535 (0: any free port), not " + port);
    }
    return port;
  }

  /**
   * Whether the JVM runs attached to a terminal. Up to JDK 21 that is a non-null {@link
   * System#console()}; from JDK 22 on there is a console even when the output is redirected, and
   * {@code Console.isTerminal()} (called reflectively, as it is not in JDK 17) tells.
   */
  @SuppressWarnings("SystemConsoleNull") // the null test is the right one up to JDK 21
  private static boolean interactiveTerminal() {
    Console console = System.console();
    if (console == null || Runtime.version().feature() < 22) {
      return console != null;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      throw new LinkageError(e.getMessage(), e);
    }
  }
}
