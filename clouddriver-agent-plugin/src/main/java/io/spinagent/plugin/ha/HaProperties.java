package io.spinagent.plugin.ha;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

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

  /** How often the owner renews its ownership rows. */
  private Duration heartbeatInterval = Duration.ofSeconds(10);

  /** Ownership whose heartbeat is older than this is treated as gone. */
  private Duration ownerTimeout = Duration.ofSeconds(30);

  /** How long a replica waits to connect to the owner before answering 503. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  @NestedConfigurationProperty private final Tls tls = new Tls();

  /** TLS between replicas: the forwarding endpoint serves it, and forwarding replicas verify it. */
  public static class Tls {
    private boolean enabled = false;
    /** PEM: this replica's certificate, then intermediates. */
    private Path certificateChain;
    /** PEM: its private key (PKCS#8). */
    private Path privateKey;
    /** PEM: the CAs a forwarding replica trusts for the owners' certificates. */
    private Path trustCertCollection;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Path getCertificateChain() {
      return certificateChain;
    }

    public void setCertificateChain(Path certificateChain) {
      this.certificateChain = certificateChain;
    }

    public Path getPrivateKey() {
      return privateKey;
    }

    public void setPrivateKey(Path privateKey) {
      this.privateKey = privateKey;
    }

    public Path getTrustCertCollection() {
      return trustCertCollection;
    }

    public void setTrustCertCollection(Path trustCertCollection) {
      this.trustCertCollection = trustCertCollection;
    }
  }

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

  public Tls getTls() {
    return tls;
  }
}
