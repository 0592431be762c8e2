package io.spinagent.plugin.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Disconnects clients of the plugin's JDK HTTP server (the forwarding endpoint between replicas;
 * the tunnel runs on {@link NettyHttpServer}, which answers them 408) that have not sent a whole
 * request line and headers within {@value #SECONDS} seconds, so that slow or stalled connections
 * (slowloris) cannot pile up; a request whose answer takes long is not affected. The JDK offers no
 * per-server setting: it reads the system property {@value #PROPERTY} once, when the first server
 * in the JVM starts, and closes such connections without an answer.
 */
public final class SlowClients {

  public static final String PROPERTY = "sun.net.httpserver.maxReqTime";
  static final int SECONDS = 30;
  private static final Logger log = LoggerFactory.getLogger(SlowClients.class);

  private SlowClients() {}

  /** Sets the property unless the operator set it; a value of none or below 1 is warned about. */
  public static synchronized void disconnect() {
    String configured = System.getProperty(PROPERTY);
    if (configured == null) {
      System.setProperty(PROPERTY, Integer.toString(SECONDS));
      return;
    }
    long seconds;
    try {
      seconds = Long.parseLong(configured.strip());
    } catch (NumberFormatException e) {
      seconds = -1;
    }
    if (seconds < 1) {
      log.warn(
          "-D{}={} is set: clients of SpinAgent's replica forwarding endpoint that never finish"
              + " sending a request keep their connection open for ever; remove the setting unless"
              + " you need it",
          PROPERTY,
          configured);
    }
  }
}
