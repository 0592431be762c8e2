package io.spinagent.agent.config;

import java.util.Objects;

/**
 * A {@code host:port} address. IPv6 literals are written in brackets: {@code [fd00::1]:9091}.
 *
 * @param host DNS name or IP literal (without brackets)
 * @param port 1 to 65535
 */
public record GrpcTarget(String host, int port) {

  static final String SYNTAX = "host:port, e.g. spin-clouddriver-grpc:9091";

  public GrpcTarget {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be between 1 and 65535");
    }
  }

  /**
   * Parses {@code host:port}.
   *
   * @throws IllegalArgumentException with a message for the operator
   */
  public static GrpcTarget parse(String text) {
    String s = text.trim();
    if (s.contains("://")) {
      throw new IllegalArgumentException(
          "expected " + SYNTAX + " without a scheme, got '" + s + "'");
    }
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("expected " + SYNTAX + ", got '" + s + "'");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      throw new IllegalArgumentException(
          "an IPv6 address must be written in brackets, e.g. [fd00::1]:9091");
    }
    if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("expected " + SYNTAX + ", got '" + s + "'");
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the port in '" + s + "' is not a number");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("the port in '" + s + "' must be between 1 and 65535");
    }
    return new GrpcTarget(host, port);
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
