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
import org.bouncycastle.asn1.x509.BasicConstraints;
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
 * The tunnel's own certificate authority and serving certificate, made when the plugin starts and
 * never written to disk. kubectl sends bearer tokens only over TLS, so the tunnel speaks HTTPS even
 * on loopback; each account's kubeconfig carries this CA to trust.
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

  /** A CA and a certificate for {@code host} (plus localhost and 127.0.0.1), valid for a year. */
  static TunnelTls generate(String host) {
    try {
      KeyPair caKeys = keyPair();
      X500Name caName = new X500Name("CN=SpinAgent tunnel CA");
      X509v3CertificateBuilder caBuilder = builder(caName, caName, caKeys);
      caBuilder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      X509Certificate ca = sign(caBuilder, caKeys);

      KeyPair servingKeys = keyPair();
      X509v3CertificateBuilder servingBuilder = builder(caName, new X500Name("CN=spinagent-tunnel"), servingKeys);
      servingBuilder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
          new GeneralName(GeneralName.dNSName, "localhost"),
          new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
          new GeneralName(isIpAddress(host) ? GeneralName.iPAddress : GeneralName.dNSName, host)}));
      return new TunnelTls(ca, sign(servingBuilder, caKeys), servingKeys);
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("SpinAgent cannot create the tunnel's TLS certificate: " + e.getMessage(), e);
    }
  }

  SSLContext serverContext() {
    char[] password = new char[0];
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("tunnel", servingKeys.getPrivate(), password, new Certificate[] {serving, ca});
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("SpinAgent cannot set up the tunnel's TLS: " + e.getMessage(), e);
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
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(now.toEpochMilli()),
        Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(365))), subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws GeneralSecurityException, OperatorCreationException {
    return new JcaX509CertificateConverter()
        .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
  }

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(256);
    return generator.generateKeyPair();
  }

  private static boolean isIpAddress(String host) {
    return host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }
}
