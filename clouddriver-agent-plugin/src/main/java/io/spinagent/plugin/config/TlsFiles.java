package io.spinagent.plugin.config;

import java.nio.file.Path;

/**
 * TLS from PEM files: the keys every TLS endpoint of the plugin shares ({@code enabled}, {@code
 * certificate-chain}, {@code private-key}, {@code trust-cert-collection}).
 */
public class TlsFiles {
  private boolean enabled = false;

  /** PEM: this side's certificate, then intermediates. */
  private Path certificateChain;

  /** PEM: its private key (PKCS#8). */
  private Path privateKey;

  /** PEM: the CAs trusted for the other side's certificates. */
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
