package io.spinagent.plugin.ha;

import io.spinagent.plugin.config.TlsFiles;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * {@code spinagent.ha.*}: several Clouddriver replicas sharing one database. The replica holding an
 * account's agent stream owns the account; tunnel requests reaching another replica are forwarded
 * to the owner's forwarding endpoint. Active when Clouddriver has a SQL database and {@code
 * shared-secret} is set.
 */
@ConfigurationProperties("spinagent.ha")
public class HaProperties {

  /** Secret every replica presents on the forwarding endpoint; the same on all replicas. */
  private String sharedSecret = "";

  /** Address the forwarding endpoint binds to: it must be reachable from the other replicas. */
  private String address = "0.0.0.0";

  private int port = 9093;

  /**
   * The host other replicas use to reach this one (in Kubernetes, the pod IP). Empty: this host's
   * address as Java resolves it.
   */
  private String advertiseAddress = "";

  /** How often the owner renews its ownership rows and records the agents connected to it. */
  private Duration heartbeatInterval = Duration.ofSeconds(10);

  /** Ownership (or a connected agent's row) whose heartbeat is older than this is gone. */
  private Duration ownerTimeout = Duration.ofSeconds(30);

  /** How long a replica waits to connect to the owner before answering 503. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /**
   * How long a client of the forwarding endpoint may take to send a request's line and headers,
   * from the connection's start (or the first byte of its next request); a slower one is answered
   * 408 and disconnected. Once the headers are in, nothing is timed (forwarded watches, commands
   * waiting for their agents).
   */
  private Duration headerTimeout = Duration.ofSeconds(30);

  /**
   * The request line and headers of one forwarded request together; a larger one is answered 431.
   * Room for a tunnel request at {@code spinagent.tunnel.max-header-size} (64 KB) plus the headers
   * forwarding adds.
   */
  private DataSize maxHeaderSize = DataSize.ofKilobytes(72);

  /**
   * The body of one forwarded request (a tunnel request or an account command); a larger one is
   * answered 413. Well above what a Kubernetes API server accepts in a request (3 MiB by default)
   * and what an account command carries.
   */
  private DataSize maxRequestBody = DataSize.ofMegabytes(16);

  /** TLS between replicas: the forwarding endpoint serves it, and forwarding replicas verify it. */
  @NestedConfigurationProperty private final TlsFiles tls = new TlsFiles();

  public String getSharedSecret() {
    return sharedSecret;
  }

  public void setSharedSecret(String sharedSecret) {
    this.sharedSecret = sharedSecret;
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

  public String getAdvertiseAddress() {
    return advertiseAddress;
  }

  public void setAdvertiseAddress(String advertiseAddress) {
    this.advertiseAddress = advertiseAddress;
  }

  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getOwnerTimeout() {
    return ownerTimeout;
  }

  public void setOwnerTimeout(Duration ownerTimeout) {
    this.ownerTimeout = ownerTimeout;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

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

  public DataSize getMaxRequestBody() {
    return maxRequestBody;
  }

  public void setMaxRequestBody(DataSize maxRequestBody) {
    this.maxRequestBody = maxRequestBody;
  }

  public TlsFiles getTls() {
    return tls;
  }
}
