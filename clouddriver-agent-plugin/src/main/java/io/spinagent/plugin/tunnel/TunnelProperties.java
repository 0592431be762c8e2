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
