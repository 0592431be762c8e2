package io.spinagent.plugin.tunnel;

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
