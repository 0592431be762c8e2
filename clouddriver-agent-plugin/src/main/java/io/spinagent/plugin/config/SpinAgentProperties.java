package io.spinagent.plugin.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * The plugin's settings: {@code spinagent.*} in Clouddriver's configuration, or the same keys under
 * the plugin's config block (see {@link SpinAgentPluginConfig}). Every default is documented in
 * docs/configuration.md.
 */
@ConfigurationProperties(SpinAgentProperties.PREFIX)
public class SpinAgentProperties {

  public static final String PREFIX = "spinagent";

  @NestedConfigurationProperty private final Grpc grpc = new Grpc();

  public Grpc getGrpc() {
    return grpc;
  }

  /** The server agents connect to. */
  public static class Grpc {
    /** Address to bind; all interfaces by default. */
    private String address = "0.0.0.0";

    /** Port agents connect to; 0 picks a free one (tests). */
    private int port = 9091;

    /** Largest frame an agent may send; larger ones end that agent's stream with RESOURCE_EXHAUSTED. */
    private DataSize maxInboundMessageSize = DataSize.ofMegabytes(4);

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

    public DataSize getMaxInboundMessageSize() {
      return maxInboundMessageSize;
    }

    public void setMaxInboundMessageSize(DataSize maxInboundMessageSize) {
      this.maxInboundMessageSize = maxInboundMessageSize;
    }
  }
}
