package io.spinagent.common;

import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The HTTP headers that each hop of a relayed request sets for itself and a relay therefore never
 * copies: the hop-by-hop headers of RFC 9110 (section 7.6.1) and the body framing ({@code
 * Content-Length}, {@code Transfer-Encoding}), which the next hop writes for the body as it sends
 * it. Shared by every relay of SpinAgent: the agent's tunnel towards the API server, the plugin's
 * tunnel towards the agent, and the plugin's forwarding to another replica.
 */
public final class HopByHopHeaders {

  /** Lower-case names. */
  private static final Set<String> NAMES =
      Set.of(
          "host",
          "connection",
          "keep-alive",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "content-length");

  private HopByHopHeaders() {}

  /**
   * The lower-case names of the headers a relay keeps to its own side: these and {@code others}
   * (any case), e.g. the credentials that are good for one hop only.
   */
  public static Set<String> and(String... others) {
    return Stream.concat(NAMES.stream(), Stream.of(others).map(n -> n.toLowerCase(Locale.ROOT)))
        .collect(Collectors.toUnmodifiableSet());
  }
}
