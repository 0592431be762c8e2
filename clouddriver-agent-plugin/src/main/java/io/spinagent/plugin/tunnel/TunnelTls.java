package io.spinagent.plugin.tunnel;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The tunnel's serving certificate, made when the plugin starts and never written anywhere, signed
 * by the {@link TunnelAuthority}. kubectl sends bearer tokens only over TLS, so the tunnel speaks
 * HTTPS even on loopback; each account's kubeconfig carries the authority's certificate to trust.
 */
final class TunnelTls {

  private final X509Certificate ca;
  private final X509Certificate serving;
  private final KeyPair servingKeys;

  private TunnelTls(X509Certificate ca, X509Certificate serving, KeyPair servingKeys) {
    this.ca = ca;
    this.serving = serving;
    this.servingKeys = servingKeys;
  }

  /** A CA of its own and a certificate for {@code host}: one replica without a database. */
  static TunnelTls generate(String host) {
    return issue(TunnelAuthority.generate(), host);
  }

  /**
   * A certificate for {@code host} (plus localhost and 127.0.0.1) signed by {@code authority},
   * valid for a year. The serving key never leaves this replica; only the authority is shared.
   */
  static TunnelTls issue(TunnelAuthority authority, String host) {
    try {
      KeyPair servingKeys = keyPair();
      X509v3CertificateBuilder servingBuilder =
          builder(TunnelAuthority.NAME, new X500Name("CN=spinagent-tunnel"), servingKeys);
      servingBuilder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(
                    isIpAddress(host) ? GeneralName.iPAddress : GeneralName.dNSName, host)
              }));
      X509Certificate serving =
          new JcaX509CertificateConverter()
              .getCertificate(
                  servingBuilder.build(
                      new JcaContentSignerBuilder("SHA256withECDSA")
                          .build(authority.privateKey())));
      return new TunnelTls(authority.certificate(), serving, servingKeys);
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException(
          "SpinAgent cannot create the tunnel's TLS certificate: " + e.getMessage(), e);
    }
  }

  SSLContext serverContext() {
    char[] password = new char[0];
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          "tunnel", servingKeys.getPrivate(), password, new Certificate[] {serving, ca});
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(
          "SpinAgent cannot set up the tunnel's TLS: " + e.getMessage(), e);
    }
  }

  /** PEM of the CA, for kubeconfigs' {@code certificate-authority-data}. */
  String caCertificatePem() {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(ca);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(now.toEpochMilli()),
        Date.from(now.minus(Duration.ofMinutes(5))),
        Date.from(now.plus(Duration.ofDays(365))),
        subject,
        keys.getPublic());
  }

  static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(256);
    return generator.generateKeyPair();
  }

  private static boolean isIpAddress(String host) {
    return host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }
}
