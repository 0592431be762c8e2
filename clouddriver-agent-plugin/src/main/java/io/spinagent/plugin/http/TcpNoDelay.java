package io.spinagent.plugin.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns on {@code TCP_NODELAY} for the JDK HTTP server the plugin runs (the forwarding endpoint
 * between replicas; the tunnel's {@link NettyHttpServer} sets it per connection). The JDK server
 * writes a response's headers and its body separately; with Nagle's algorithm on, the body waits
 * for the client's delayed acknowledgement of the headers, which adds about 40 ms to every kubectl
 * request on Linux. The JDK offers no per-server switch: it reads the system property {@value
 * #PROPERTY} once, when the first server in the JVM starts.
 */
public final class TcpNoDelay {

  public static final String PROPERTY = "sun.net.httpserver.nodelay";
  private static final Logger log = LoggerFactory.getLogger(TcpNoDelay.class);

  private TcpNoDelay() {}

  /**
   * Sets the property unless the operator set it; an explicit {@code false} is kept, with a
   * warning.
   */
  public static synchronized void enable() {
    String configured = System.getProperty(PROPERTY);
    if (configured == null) {
      System.setProperty(PROPERTY, "true");
    } else if (!Boolean.parseBoolean(configured)) {
      log.warn(
          "-D{}={} is set: SpinAgent's replica forwarding endpoint answers about 40 ms later per"
              + " request (delayed acknowledgements); remove the setting unless you need it",
          PROPERTY,
          configured);
    }
  }
}
