package io.spinagent.agent.config;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The proxy settings of the environment: {@code HTTPS_PROXY}, {@code HTTP_PROXY} and {@code
 * NO_PROXY} (upper case first, then lower case), read with the rules of Go's {@code
 * net/http/httpproxy}, which Armory Scale Agent, kubectl and client-go follow:
 *
 * <ul>
 *   <li>an {@code https} connection (every cluster's API server, and the gRPC connection to
 *       Clouddriver, as in grpc-go) uses {@code HTTPS_PROXY}; an {@code http} one {@code
 *       HTTP_PROXY};
 *   <li>a proxy is written {@code http://[user:password@]host[:port]} (port 80 by default); without
 *       a scheme, {@code http://} is assumed;
 *   <li>{@code localhost} and loopback addresses are never proxied;
 *   <li>{@code NO_PROXY} is a comma-separated list of {@code *} (nothing is proxied), IP addresses,
 *       CIDR ranges and domain names, each optionally with {@code :port}: {@code example.com}
 *       matches it and its subdomains, {@code .example.com} and {@code *.example.com} only its
 *       subdomains.
 * </ul>
 *
 * <p>Only HTTP proxies are supported (the connection is tunnelled with HTTP CONNECT for TLS).
 */
public final class ProxyEnvironment {

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  /** A proxy to use, and the variable it came from (for messages). */
  public record Proxy(
      String variable,
      String host,
      int port,
      Optional<String> username,
      Optional<String> password) {

    public Proxy {
      Objects.requireNonNull(variable, "variable");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
    }

    /** {@code host:port} from {@code VARIABLE}, without credentials. */
    public String describe() {
      return host + ":" + port + " (" + variable + ")";
    }

    /**
     * Why a connection through this proxy failed, for the connection's error and the log: the
     * proxy, its answer to CONNECT and, for a 407, what to do about the credentials.
     *
     * @param answer the proxy's status line ({@code 407 Proxy Authentication Required})
     * @param target {@code host:port} the proxy was asked to connect to
     */
    public String refusal(String answer, String target) {
      String message = "the proxy " + describe() + " answered " + answer + " to CONNECT " + target;
      if (!answer.startsWith("407")) {
        return message;
      }
      return message
          + (username.isPresent()
              ? ": it refused the credentials in " + variable
              : ": it asks for credentials; give them in "
                  + variable
                  + " (http://user:password@host:port)");
    }

    @Override
    public String toString() {
      return "Proxy[" + describe() + (username.isPresent() ? ", with credentials" : "") + "]";
    }
  }

  private final Function<String, String> environment;

  private ProxyEnvironment(Function<String, String> environment) {
    this.environment = environment;
  }

  /** The agent's own environment. */
  public static ProxyEnvironment system() {
    return of(System::getenv);
  }

  public static ProxyEnvironment of(Function<String, String> environment) {
    return new ProxyEnvironment(Objects.requireNonNull(environment, "environment"));
  }

  /**
   * Whether a proxy variable is set at all. When none is, connections behave as they would without
   * this class (the JVM's own proxy settings, if any, still apply).
   */
  public boolean isSet() {
    return variable("HTTPS_PROXY").isPresent() || variable("HTTP_PROXY").isPresent();
  }

  /**
   * The proxy for a connection to {@code host:port} over {@code scheme} ({@code https} or {@code
   * http}), or empty for a direct connection.
   *
   * @throws IllegalArgumentException naming the variable when its proxy cannot be used
   */
  public Optional<Proxy> proxyFor(String scheme, String host, int port) {
    String name = "https".equalsIgnoreCase(scheme) ? "HTTPS_PROXY" : "HTTP_PROXY";
    Optional<Variable> proxy = variable(name);
    if (proxy.isEmpty() || !useProxy(host.toLowerCase(Locale.ROOT), port)) {
      return Optional.empty();
    }
    return Optional.of(parse(proxy.get()));
  }

  private record Variable(String name, String value) {}

  /** {@code NAME}, else {@code name}, if set and not empty. */
  private Optional<Variable> variable(String upperCase) {
    for (String name : List.of(upperCase, upperCase.toLowerCase(Locale.ROOT))) {
      String value = environment.apply(name);
      if (value != null && !value.isBlank()) {
        return Optional.of(new Variable(name, value.trim()));
      }
    }
    return Optional.empty();
  }

  private static Proxy parse(Variable variable) {
    String value = variable.value();
    String withScheme = value.contains("://") ? value : "http://" + value;
    URI uri;
    try {
      uri = new URI(withScheme);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          variable.name() + " is not a proxy URL such as http://proxy:3128: " + e.getReason());
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http")) {
      throw new IllegalArgumentException(
          variable.name()
              + " names a "
              + scheme
              + " proxy; the agent connects through HTTP proxies only (http://host:port)");
    }
    String host = uri.getHost();
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException(
          variable.name() + " has no proxy host; write it as http://proxy:3128");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    Optional<String> user = Optional.empty();
    Optional<String> password = Optional.empty();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      user = Optional.of(decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      password = colon < 0 ? Optional.empty() : Optional.of(decode(userInfo.substring(colon + 1)));
    }
    return new Proxy(variable.name(), host, uri.getPort() < 0 ? 80 : uri.getPort(), user, password);
  }

  private static String decode(String text) {
    return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private boolean useProxy(String host, int port) {
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    InetAddress ip = literal(host);
    if (host.equals("localhost") || (ip != null && ip.isLoopbackAddress())) {
      return false;
    }
    Optional<Variable> noProxy = variable("NO_PROXY");
    if (noProxy.isEmpty()) {
      return true;
    }
    for (String raw : noProxy.get().value().split(",", 0)) {
      String entry = raw.trim().toLowerCase(Locale.ROOT);
      if (entry.isEmpty()) {
        continue;
      }
      if (entry.equals("*")) {
        return false;
      }
      if (entry.contains("/")) {
        if (ip != null && inRange(ip, entry)) {
          return false;
        }
        continue;
      }
      String entryHost = entry;
      int entryPort = -1;
      int colon = entry.lastIndexOf(':');
      // host:port, or [v6]:port; a bare IPv6 address has more than one colon and no port.
      if (colon > 0 && (entry.indexOf(':') == colon || entry.startsWith("["))) {
        try {
          entryPort = Integer.parseInt(entry.substring(colon + 1));
          entryHost = entry.substring(0, colon);
        } catch (NumberFormatException notAPort) {
          // Kept whole.
        }
      }
      if (entryHost.startsWith("[") && entryHost.endsWith("]")) {
        entryHost = entryHost.substring(1, entryHost.length() - 1);
      }
      if (entryPort >= 0 && entryPort != port) {
        continue;
      }
      InetAddress entryIp = literal(entryHost);
      if (entryIp != null) {
        if (entryIp.equals(ip)) {
          return false;
        }
        continue;
      }
      if (entryHost.startsWith("*.")) {
        entryHost = entryHost.substring(1);
      }
      boolean alsoTheDomain = !entryHost.startsWith(".");
      String suffix = alsoTheDomain ? "." + entryHost : entryHost;
      if (host.endsWith(suffix) || (alsoTheDomain && host.equals(entryHost))) {
        return false;
      }
    }
    return true;
  }

  /** The address of an IP literal, never looking a name up; null for a host name. */
  private static InetAddress literal(String host) {
    if (!IPV4.matcher(host).matches() && !host.contains(":")) {
      return null;
    }
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  private static boolean inRange(InetAddress ip, String cidr) {
    int slash = cidr.indexOf('/');
    InetAddress network = literal(cidr.substring(0, slash));
    int bits;
    try {
      bits = Integer.parseInt(cidr.substring(slash + 1));
    } catch (NumberFormatException e) {
      return false;
    }
    if (network == null) {
      return false;
    }
    byte[] a = ip.getAddress();
    byte[] b = network.getAddress();
    if (a.length != b.length || bits < 0 || bits > a.length * 8) {
      return false;
    }
    for (int i = 0; i < bits; i++) {
      int mask = 0x80 >> (i % 8);
      if ((a[i / 8] & mask) != (b[i / 8] & mask)) {
        return false;
      }
    }
    return true;
  }

  /** The variables in effect, without credentials, for the agent's start-up log. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    for (String name : List.of("HTTPS_PROXY", "HTTP_PROXY")) {
      variable(name)
          .ifPresent(
              v -> {
                try {
                  Proxy proxy = parse(v);
                  parts.add(v.name() + "=" + proxy.host() + ":" + proxy.port());
                } catch (IllegalArgumentException e) {
                  parts.add(v.name() + " (unusable: " + e.getMessage() + ")");
                }
              });
    }
    variable("NO_PROXY").ifPresent(v -> parts.add(v.name() + "=" + v.value()));
    return parts.isEmpty() ? "no proxy variables" : String.join(", ", parts);
  }
}
