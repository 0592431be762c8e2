package io.spinagent.plugin.tunnel;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/** {@code spinagent.tunnel.*}: where Clouddriver's kubectl reaches the agents' clusters. */
@ConfigurationProperties("spinagent.tunnel")
public class TunnelProperties {

  /** Loopback by default: only Clouddriver itself should reach the tunnel. */
  private String address = "127.0.0.1";

  private int port = 9092;

  /** Response bytes an agent may send ahead of what the client has read, per request. */
  private DataSize window = DataSize.ofKilobytes(256);

  /**
   * The request line and headers of one request together; a larger request is answered 431 without
   * being relayed. kubectl sends a few kilobytes; the API server's own limit is 1 MB.
   */
  private DataSize maxHeaderSize = DataSize.ofKilobytes(64);

  /**
   * How long a client may take to send a request's line and headers, from the connection's start
   * (or the first byte of its next request); a slower client is answered 408 and disconnected, so
   * stalled connections (slowloris) cannot pile up. Once the headers are in, no limit applies: a
   * watch or a long apply takes as long as it takes. A kept-alive connection that stays unused as
   * long is closed.
   */
  private Duration headerTimeout = Duration.ofSeconds(30);

  public Duration getHeaderTimeout() {
    return headerTimeout;
  }

  public void setHeaderTimeout(Duration headerTimeout) {
    this.headerTimeout = headerTimeout;
  }

  public DataSize getMaxHeaderSize() {
    return maxHeaderSize;
  }

  public void setMaxHeaderSize(DataSize maxHeaderSize) {
    this.maxHeaderSize = maxHeaderSize;
  }

  public String getAddress() {
    return address;
  }

  public void setAddress(String address) {
    this.address = address;
  }

  public int getPort() {
    return port;
  }

  public void setPort(int port) {
    this.port = port;
  }

  public DataSize getWindow() {
    return window;
  }

  public void setWindow(DataSize window) {
    this.window = window;
  }
}
