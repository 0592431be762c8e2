package io.spinagent.plugin.ha;

import io.spinagent.plugin.config.TlsFiles;
import java.io.IOException;
import java.io.Reader;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/** TLS between replicas ({@code spinagent.ha.tls}), from PEM files. */
final class ReplicaTls {

  private ReplicaTls() {}

  /**
   * The client a replica reaches another's forwarding endpoint with: HTTP/1.1, {@code
   * spinagent.ha.connect-timeout}, and replica TLS when it is enabled.
   */
  static HttpClient httpClient(HaProperties properties) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(properties.getConnectTimeout());
    if (properties.getTls().isEnabled()) {
      builder.sslContext(client(properties.getTls()));
    }
    return builder.build();
  }

  /** The forwarding endpoint's side: this replica's certificate chain and key. */
  static SSLContext server(TlsFiles tls) {
    Path chain = required(tls.getCertificateChain(), "certificate-chain");
    Path keyFile = required(tls.getPrivateKey(), "private-key");
    try {
      List<Certificate> certificates = certificates(chain);
      if (certificates.isEmpty()) {
        throw new IllegalStateException(
            "spinagent.ha.tls.certificate-chain " + chain + " holds no certificate");
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          "replica", privateKey(keyFile), new char[0], certificates.toArray(Certificate[]::new));
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, new char[0]);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "SpinAgent cannot use spinagent.ha.tls ("
              + chain
              + ", "
              + keyFile
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The forwarding side: trusts the CAs of {@code trust-cert-collection}, or the JVM's own without
   * it.
   */
  static SSLContext client(TlsFiles tls) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      if (tls.getTrustCertCollection() == null) {
        context.init(null, null, null);
        return context;
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int i = 0;
      for (Certificate certificate : certificates(tls.getTrustCertCollection())) {
        store.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(
          "SpinAgent cannot use spinagent.ha.tls.trust-cert-collection "
              + tls.getTrustCertCollection()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static List<Certificate> certificates(Path file)
      throws IOException, GeneralSecurityException {
    List<Certificate> certificates = new ArrayList<>();
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    try (Reader reader = Files.newBufferedReader(file);
        PEMParser parser = new PEMParser(reader)) {
      Object object;
      while ((object = parser.readObject()) != null) {
        if (object instanceof X509CertificateHolder holder) {
          certificates.add(converter.getCertificate(holder));
        }
      }
    }
    return certificates;
  }

  private static PrivateKey privateKey(Path file) throws IOException {
    try (Reader reader = Files.newBufferedReader(file);
        PEMParser parser = new PEMParser(reader)) {
      Object object = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (object instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      if (object instanceof PEMKeyPair pair) {
        return converter.getKeyPair(pair).getPrivate();
      }
      throw new IllegalStateException(
          "spinagent.ha.tls.private-key " + file + " holds no PEM private key");
    }
  }

  private static Path required(Path path, String key) {
    if (path == null) {
      throw new IllegalStateException(
          "spinagent.ha.tls." + key + " is required when spinagent.ha.tls is enabled");
    }
    return path;
  }
}
